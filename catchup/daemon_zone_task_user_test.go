package catchup

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRootDaemonAdoptsNoZoneFileOfAnotherUser: a daemon line naming no
// zone keeps, on a shared ledger, the zone its task is registered in (the
// fleet's: TestDaemonReplicasInTwoZones). A root daemon does not take a
// zone spelled as a file's path that another user registered (their `run
// --cron`, their daemon): it would read that file with root's rights, at
// its start and at every fire, and record the slots it fires in it on the
// ledger that user reads. The line stays in this host's zone, said. A zone
// root's own daemon registered elsewhere (a replica's) is taken as before.
// Before, root's daemon took the path, and read a zone only root may read.
func TestRootDaemonAdoptsNoZoneFileOfAnotherUser(t *testing.T) {
	t.Parallel()
	_, zone, _ := privateZone(t)
	for _, tc := range []struct {
		name, source string
		adopts       bool
	}{
		{"another user's run --cron", "run:uid=65534", false},
		{"another user's daemon", "daemon:/c:1 host=h pid=9 uid=65534", false},
		{"a replica of root's daemon", "daemon:/c:1 host=h pid=9 uid=0", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := testPostgres(t)
			t0 := mustTime(t, "2026-11-16T12:00:00Z")
			if err := st.UpsertTask(t.Context(), store.Task{Name: "job", Schedule: "0 2 * * *", TZ: zone, Replay: "all",
				Argv: []string{"true"}, Source: tc.source, RegisteredAt: t0}); err != nil {
				t.Fatal(err)
			}
			m := testMachine("postgres://", t0.Add(time.Hour))
			m.UID = 0
			var said strings.Builder
			m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
			def := store.Task{Name: "job", Schedule: "0 2 * * *", TZ: "UTC", Replay: "all", Argv: []string{"true"}, Source: "daemon:/c:1"}
			got, _, err := RegisterDaemonTask(t.Context(), st, m, def, true, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			want := "UTC"
			if tc.adopts {
				want = zone
			}
			if got.TZ != want {
				t.Errorf("registered in %s; want %s (said %q)", got.TZ, want, said.String())
			}
			if !tc.adopts && !strings.Contains(said.String(), "another user registered") {
				t.Errorf("said %q; want the zone not taken said", said.String())
			}
		})
	}
}

// TestRootFireAdoptsNoZoneFileOfAnotherUser: a root fire of a line
// naming no zone (`run --cron`, its zone the host's) does not read its
// task in the zone another user registered on the shared ledger as a
// file's path, as root's daemon does not (TestRootDaemonAdoptsNoZoneFileOfAnotherUser):
// it reads its slots in this host's zone, said. Before, it read the file
// with root's rights and stood for the slot of 02:00 there.
func TestRootFireAdoptsNoZoneFileOfAnotherUser(t *testing.T) {
	t.Parallel()
	_, zone, _ := privateZone(t)
	st := testPostgres(t)
	t0 := mustTime(t, "2026-11-16T17:00:10Z") // 02:00:10 in Asia/Tokyo
	if err := st.UpsertTask(t.Context(), store.Task{Name: "job", Schedule: "0 2 * * *", TZ: zone, Replay: "all",
		Argv: []string{"true"}, Source: "run:uid=65534", RegisteredAt: t0.Add(-48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	m := testMachine("postgres://", t0)
	m.UID, m.Zone, m.LockDir = 0, "UTC", t.TempDir()
	var said strings.Builder
	m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
	req := RunRequest{Task: "job", Schedule: mustSchedule(t, "0 2 * * *", "UTC"), TZ: "UTC", ZoneFromHost: true, Replay: "all",
		Tolerance: 5 * time.Minute, KillAfter: time.Second, Argv: []string{"true"}}
	if _, err := Run(t.Context(), st, nil, m, req); err != nil {
		t.Fatal(err)
	}
	runs, err := st.History(t.Context(), store.HistoryFilter{Task: "job", Limit: 10})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v; want the fire's", runs, err)
	}
	if !runs[0].Slot.IsZero() {
		t.Errorf("the fire stands for slot %v; want none: 02:00 in UTC is hours away (said %q)", runs[0].Slot, said.String())
	}
	if !strings.Contains(said.String(), "another user registered") {
		t.Errorf("said %q; want the zone not taken said", said.String())
	}
}
