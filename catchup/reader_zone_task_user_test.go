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

// TestReadersZoneFileAsTaskUser: root's readers read a task's zone file
// with the rights of the task's user, also where no crontab line says who
// that is: another user's `catchup run --cron` task on a shared ledger (its
// registrant's uid), and a crontab task whose line is gone or whose
// crontab is refused (nobody: only what every user may read). Each reader:
// ls and metrics (List), explain, calendar, and the zones history and
// show print runs in (RunZones). Before, all of them but a found line's
// read the file with root's rights: a zone file in a directory only root
// may enter showed the task in Asia/Tokyo, with its slots.
func TestReadersZoneFileAsTaskUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it reads zone files as nobody")
	}
	f := newRunFixture(t, "2026-03-01T09:30:00Z")
	top, zone, public := privateZone(t)
	refused := filepath.Join(top, "refused") // nobody's, and writable by all: cron (and scan) refuse it
	if err := os.WriteFile(refused, []byte("CRON_TZ="+zone+"\n0 * * * * catchup run --task refused -- true\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(refused, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(refused, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	since := f.now.Add(-48 * time.Hour)
	hidden := []store.Task{ // a zone file nobody may read: no zone, no slot shown
		{Name: "gone", Source: "crontab:" + filepath.Join(top, "no-such-crontab") + ":2"},
		{Name: "refused", Source: "crontab:" + refused + ":2"},
		{Name: "run-uid", Source: "run:uid=65534"},
		{Name: "daemon-uid", Source: "daemon:/x/crontab:1 host=h pid=9 uid=65534"},
	}
	for _, task := range append(hidden, store.Task{Name: "run-open", Source: "run:uid=65534"}) {
		task.Schedule, task.TZ, task.Replay, task.RegisteredAt = "0 * * * *", zone, "all", since
		if task.Name == "run-open" {
			task.TZ = public // a zone file nobody may read: read, as that user's fires read it
		}
		if err := f.st.UpsertTask(ctx, task); err != nil {
			t.Fatal(err)
		}
		if _, err := f.st.AddRun(ctx, store.Run{Task: task.Name, Status: store.StatusSkipped, Trigger: store.TriggerSchedule,
			StartedAt: since, EndedAt: since, Host: f.m.Host}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := List(ctx, f.st, f.m, ListRequest{Rule: scanRequest().MissedRule})
	if err != nil || len(list) != len(hidden)+1 {
		t.Fatalf("List: %v, %v", list, err)
	}
	for _, ts := range list {
		if ts.Task.Name == "run-open" {
			if ts.BadSchedule != "" || ts.Zone.String() != "Asia/Tokyo" || len(ts.Missed) == 0 {
				t.Errorf("run-open: bad schedule %q, zone %v, %d missed; want its zone file read", ts.BadSchedule, ts.Zone, len(ts.Missed))
			}
			continue
		}
		if !strings.Contains(ts.BadSchedule, "unknown time zone") || !strings.Contains(ts.BadSchedule, "permission denied") {
			t.Errorf("ls %s: bad schedule %q; want the zone unknown: permission denied", ts.Task.Name, ts.BadSchedule)
		}
		if ts.Zone != time.UTC || !ts.Next.IsZero() || len(ts.Missed) != 0 {
			t.Errorf("ls %s: zone %v, next %v, %d missed; want UTC, no slot shown", ts.Task.Name, ts.Zone, ts.Next, len(ts.Missed))
		}
	}
	metrics, err := Metrics(ctx, f.st, f.m, scanRequest().MissedRule)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range metrics {
		if tm.Task != "run-open" && tm.Missed != 0 {
			t.Errorf("metrics %s: %d missed; want none counted in a zone root read for them", tm.Task, tm.Missed)
		}
	}
	var runs []store.Run
	for _, task := range hidden {
		if _, err := Explain(ctx, f.st, f.m, ExplainRequest{Task: task.Name, MissedRule: scanRequest().MissedRule}); err == nil ||
			!strings.Contains(err.Error(), "unknown time zone") {
			t.Errorf("explain %s: %v; want the zone unknown", task.Name, err)
		}
		var rows []CalendarRow
		err := Calendar(ctx, f.st, f.m, CalendarRequest{Tasks: []string{task.Name}, From: f.now.Add(-24 * time.Hour), To: f.now,
			Rule: scanRequest().MissedRule}, func(r CalendarRow) error { rows = append(rows, r); return nil })
		if err != nil || len(rows) != 1 {
			t.Fatalf("calendar %s: %d rows, %v", task.Name, len(rows), err)
		}
		if rows[0].Zone != time.UTC || len(rows[0].Slots) != 0 {
			t.Errorf("calendar %s: zone %v, %d slots; want UTC, no slot shown", task.Name, rows[0].Zone, len(rows[0].Slots))
		}
		runs = append(runs, store.Run{Task: task.Name})
	}
	zones, err := RunZones(ctx, f.st, f.m, append(runs, store.Run{Task: "run-open"}))
	if err != nil {
		t.Fatal(err)
	}
	for name, loc := range zones {
		if want := map[bool]string{true: "Asia/Tokyo", false: "UTC"}[name == "run-open"]; loc.String() != want {
			t.Errorf("history's zone of %s: %v; want %s", name, loc, want)
		}
	}
}
