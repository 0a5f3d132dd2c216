package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReadersZoneFileAsLineUser: root's readers (ls, explain, calendar)
// load the registered zone of another user's crontab line as that user
// would: a zone file behind a directory of root's (the user's symlink
// pointed there once the line was registered) is an unknown zone, said as
// that user's fire says it, and no slot is shown in it. Root's readers
// read it with root's rights, and showed that user's task's slots in a
// zone no fire of theirs can read (every one exits 125).
func TestReadersZoneFileAsLineUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it gives a crontab to nobody and looks as nobody")
	}
	f := newRunFixture(t, "2026-03-01T09:30:00Z")
	top, zone, public := privateZone(t)
	cron := filepath.Join(top, "crontab")
	if err := os.WriteFile(cron, []byte("CRON_TZ="+zone+"\n0 * * * * catchup run --task tz -- true\n"+
		"CRON_TZ="+public+"\n0 * * * * catchup run --task open -- true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(cron, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, task := range []store.Task{ // the task "open": a zone file nobody may read, shown in its zone
		{Name: "tz", Schedule: "0 * * * *", TZ: zone, Replay: "all", Source: "crontab:" + cron + ":2", RegisteredAt: f.now.Add(-48 * time.Hour)},
		{Name: "open", Schedule: "0 * * * *", TZ: public, Replay: "all", Source: "crontab:" + cron + ":4", RegisteredAt: f.now.Add(-48 * time.Hour)},
	} {
		if err := f.st.UpsertTask(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	wantRefused := func(t *testing.T, what, got string) {
		t.Helper()
		if !strings.Contains(got, "unknown time zone") || !strings.Contains(got, "as nobody") || !strings.Contains(got, "permission denied") {
			t.Errorf("%s: %q; want the zone unknown, as nobody: permission denied", what, got)
		}
	}
	for name, read := range map[string]func(t *testing.T){
		"ls": func(t *testing.T) {
			list, err := List(ctx, f.st, f.m, ListRequest{Rule: scanRequest().MissedRule})
			if err != nil || len(list) != 2 || list[0].Task.Name != "open" {
				t.Fatalf("List: %v, %v", list, err)
			}
			if open := list[0]; open.BadSchedule != "" || open.Zone.String() != "Asia/Tokyo" {
				t.Errorf("task open: bad schedule %q, zone %v; want its zone file read", open.BadSchedule, open.Zone)
			}
			ts := list[1]
			wantRefused(t, "its bad schedule", ts.BadSchedule)
			if ts.Zone != time.UTC || !ts.Next.IsZero() || len(ts.Missed) != 0 {
				t.Errorf("zone %v, next %v, %d missed; want UTC, no slot shown", ts.Zone, ts.Next, len(ts.Missed))
			}
		},
		"explain": func(t *testing.T) {
			_, err := Explain(ctx, f.st, f.m, ExplainRequest{Task: "tz", MissedRule: scanRequest().MissedRule})
			if err == nil {
				t.Fatal("Explain: no error; want the zone unknown")
			}
			wantRefused(t, "Explain", err.Error())
		},
		"calendar": func(t *testing.T) {
			var rows []CalendarRow
			err := Calendar(ctx, f.st, f.m, CalendarRequest{Tasks: []string{"tz"}, From: f.now.Add(-24 * time.Hour), To: f.now, Rule: scanRequest().MissedRule},
				func(r CalendarRow) error { rows = append(rows, r); return nil })
			if err != nil || len(rows) != 1 {
				t.Fatalf("Calendar: %v, %v", rows, err)
			}
			wantRefused(t, "its warning", rows[0].Warning)
			if rows[0].Zone != time.UTC || len(rows[0].Slots) != 0 {
				t.Errorf("zone %v, %d slots; want UTC, no slot shown", rows[0].Zone, len(rows[0].Slots))
			}
		},
	} {
		t.Run(name, read)
	}
}
