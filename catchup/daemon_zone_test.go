package catchup

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestDaemonReplicasInTwoZones: daemon replicas of one shared ledger in two
// zones, with a line that names none (no --tz, no CRON_TZ), run one
// schedule: the zone the task was registered in, said once at registration.
// Re-registered in each replica's zone, the zone flipped at every start and
// each replica fired its own zone's slots. A line that names its zone, and a
// local ledger, still change the task's zone.
func TestDaemonReplicasInTwoZones(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		shared, fromHost bool
		wantTZ           string
	}{
		"shared ledger, zone from the host": {shared: true, fromHost: true, wantTZ: "Europe/Berlin"},
		"shared ledger, zone on the line":   {shared: true, fromHost: false, wantTZ: "America/New_York"},
		"local ledger":                      {shared: false, fromHost: true, wantTZ: "America/New_York"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var st store.Store
			db := "postgres://"
			if c.shared {
				st = testPostgres(t)
			} else {
				st, db = testLedger(t)
			}
			t0 := mustTime(t, "2026-11-16T12:00:00Z")
			def := store.Task{Name: "job", Schedule: "0 2 * * *", TZ: "Europe/Berlin", Replay: "all", Argv: []string{"true"}, Source: "daemon:/c:1"}
			if _, _, err := RegisterDaemonTask(t.Context(), st, testMachine(db, t0), def, true, time.Time{}); err != nil {
				t.Fatal(err)
			}
			m := testMachine(db, t0.Add(time.Hour))
			var said strings.Builder
			m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
			def.TZ = "America/New_York"
			got, _, err := RegisterDaemonTask(t.Context(), st, m, def, c.fromHost, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			stored, err := st.Task(t.Context(), "job")
			if err != nil {
				t.Fatal(err)
			}
			if got.TZ != c.wantTZ || stored.TZ != c.wantTZ {
				t.Errorf("zone %s returned, %s stored; want %s", got.TZ, stored.TZ, c.wantTZ)
			}
			keeps := c.wantTZ == "Europe/Berlin"
			if kept := strings.Contains(said.String(), "registered in Europe/Berlin on the shared ledger"); kept != keeps {
				t.Errorf("said %q; want the kept zone said: %v", said.String(), keeps)
			}
			if changed := strings.Contains(said.String(), "schedule changes"); changed == keeps {
				t.Errorf("said %q; want a schedule change said: %v", said.String(), !keeps)
			}
		})
	}
}
