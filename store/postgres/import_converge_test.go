package postgres_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPostgresImportConverges: a run imported while it was running, and
// imported again once it ended, is updated to its outcome (migrate
// converges): the slot is then done on the shared ledger, not held by a
// running run and not replayable. Importing it a third time changes
// nothing and counts nothing.
func TestPostgresImportConverges(t *testing.T) {
	ctx := t.Context()
	dst := openPG(t, pgLedger(t))
	slot := t0.Add(2 * time.Hour)
	task := store.Task{Name: "settle", Schedule: "0 2 * * *", TZ: "UTC", Replay: "all", Argv: []string{"true"},
		Source: "run", RegisteredAt: t0, UpdatedAt: t0}
	r := store.Run{ID: 7, Task: "settle", Slot: slot, Trigger: store.TriggerSchedule, Status: store.StatusRunning,
		Attempt: 1, StartedAt: slot, Host: "old-host", PID: 9, BootID: "b"}
	if n, err := dst.Import(ctx, "old-host:/l.db", []store.Task{task}, []store.Run{r}); err != nil || n != 1 {
		t.Fatalf("first Import = %d, %v", n, err)
	}
	r.Status, r.ExitCode, r.EndedAt, r.StdoutTail = store.StatusSucceeded, new(int), slot.Add(time.Minute), []byte("done\n")
	n, err := dst.Import(ctx, "old-host:/l.db", []store.Task{task}, []store.Run{r})
	if err != nil || n != 1 {
		t.Fatalf("Import of the ended run = %d, %v; want 1 (updated)", n, err)
	}
	running, err := dst.Running(ctx)
	if err != nil || len(running) != 0 {
		t.Errorf("Running after the update = %+v, %v; want none", running, err)
	}
	runs, err := dst.ExportRuns(ctx, 0, 0)
	if err != nil || len(runs) != 1 || runs[0].Status != store.StatusSucceeded || string(runs[0].StdoutTail) != "done\n" ||
		!runs[0].EndedAt.Equal(r.EndedAt) {
		t.Fatalf("runs after the update = %+v, %v", runs, err)
	}
	claim, err := dst.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "settle", Slot: slot, Trigger: store.TriggerReplay,
		StartedAt: slot.Add(time.Hour), Host: "fleet"}})
	if err != nil || claim.Claimed || claim.Run.Status != store.StatusSucceeded {
		t.Errorf("a claim of the migrated slot = %+v, %v; want refused as succeeded", claim, err)
	}
	if n, err := dst.Import(ctx, "old-host:/l.db", []store.Task{task}, []store.Run{r}); err != nil || n != 0 {
		t.Errorf("Import of an unchanged run = %d, %v; want 0", n, err)
	}
}
