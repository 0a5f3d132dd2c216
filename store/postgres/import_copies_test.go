package postgres_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPostgresImportOfACopyCopiesNothingTwice: the same ledger imported
// under another origin (migrate through a symlink, of a catchup backup, or
// under another --host) adds none of the runs there already, a slot's and
// one by hand alike (found by review: each slot's run was recorded twice,
// up to four times); a run that is not there (another start) is imported.
func TestPostgresImportOfACopyCopiesNothingTwice(t *testing.T) {
	ctx := t.Context()
	dst := openPG(t, pgLedger(t))
	slot := t0.Add(2 * time.Hour)
	task := store.Task{Name: "settle", Schedule: "0 2 * * *", TZ: "UTC", Replay: "all", Argv: []string{"true"},
		Source: "run", RegisteredAt: t0, UpdatedAt: t0}
	runs := []store.Run{
		{ID: 1, Task: "settle", Slot: slot, Trigger: store.TriggerSchedule, Status: store.StatusSucceeded, Attempt: 1,
			StartedAt: slot.Add(1500 * time.Millisecond), EndedAt: slot.Add(time.Minute), Host: "old-host", PID: 9, BootID: "b"},
		{ID: 2, Task: "settle", Trigger: store.TriggerManual, Status: store.StatusFailed, Attempt: 1,
			StartedAt: slot.Add(time.Hour), EndedAt: slot.Add(61 * time.Minute), Host: "old-host", PID: 10, BootID: "b"},
	}
	if n, err := dst.Import(ctx, "old-host:/var/lib/catchup/catchup.db", []store.Task{task}, runs); err != nil || n != 2 {
		t.Fatalf("first Import = %d, %v; want 2", n, err)
	}
	for _, origin := range []string{"old-host:/var/lib/catchup/link.db", "renamed:/var/lib/catchup/catchup.db", "old-host:/backups/c.db"} {
		if n, err := dst.Import(ctx, origin, []store.Task{task}, runs); err != nil || n != 0 {
			t.Errorf("Import as %s = %d, %v; want 0 (the same runs)", origin, n, err)
		}
	}
	other := runs[0]
	other.ID, other.Slot, other.StartedAt = 3, slot.Add(24*time.Hour), slot.Add(24*time.Hour+time.Second)
	if n, err := dst.Import(ctx, "old-host:/backups/c.db", nil, []store.Run{other}); err != nil || n != 1 {
		t.Errorf("Import of another run = %d, %v; want 1", n, err)
	}
	all, err := dst.ExportRuns(ctx, 0, 0)
	if err != nil || len(all) != 3 {
		t.Errorf("the ledger holds %d runs, %v; want 3", len(all), err)
	}
}
