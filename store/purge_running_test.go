package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPurgeRefusesARunningTask: Forget with purge refuses, in its own
// transaction, a task with a run in progress, and deletes nothing. catchup
// forget --purge read the running runs first and purged in a second
// transaction: a claim (another host's fire, a scan's replay) committed in
// between had its run, slot and lock deleted while its job ran, and a
// fire of the task on another host then ran it beside that job.
func TestPurgeRefusesARunningTask(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := t.Context()
		s := be.fresh(t)
		lifecycleTask(t, s)
		id := mustClaim(t, s, store.Run{Task: "old", Slot: t0.Add(3 * time.Hour), Trigger: store.TriggerSchedule, StartedAt: t0.Add(3 * time.Hour)})
		n, err := s.Forget(ctx, "old", t0.Add(4*time.Hour), true)
		if !errors.Is(err, store.ErrRunInProgress) || n != 0 {
			t.Fatalf("Forget(purge) of a task with run %d running = %d, %v; want 0, ErrRunInProgress", id, n, err)
		}
		if _, err := s.Task(ctx, "old"); err != nil {
			t.Errorf("Task after a refused purge: %v, want it kept", err)
		}
		if runs, _ := s.History(ctx, store.HistoryFilter{Task: "old"}); len(runs) != 3 {
			t.Errorf("History after a refused purge: %d runs, want all 3 kept", len(runs))
		}
		// Its run ended, the purge goes through.
		finish(t, s, id, store.StatusSucceeded, t0.Add(3*time.Hour+time.Minute))
		if n, err := s.Forget(ctx, "old", t0.Add(4*time.Hour), true); err != nil || n != 3 {
			t.Errorf("Forget(purge) after the run ended = %d, %v; want 3 runs deleted", n, err)
		}
	})
}
