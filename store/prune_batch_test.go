package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// Prune deletes in batches, each its own transaction, so that a fire
// waits for one batch, never for the whole prune: after each batch,
// another handle on the ledger claims and finishes a run at once, and
// the ledger is consistent (a succeeded slot whose run went is refused as
// done, the watermark is at the cut).
func TestPruneGoesInBatches(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		loc := be.ledger(t)
		s, other := be.open(t, loc), be.open(t, loc)
		ctx := t.Context()
		for i := range 25 {
			at := t0.Add(time.Duration(i) * time.Hour)
			id := mustClaim(t, s, store.Run{Task: "a", Slot: at, Trigger: store.TriggerSchedule, StartedAt: at})
			finish(t, s, id, store.StatusSucceeded, at.Add(time.Minute))
		}
		before := store.PruneRequest{Before: t0.Add(100 * time.Hour)}
		var deleted []int64
		req := store.PruneRequest{Before: before.Before, Batch: 10, Batched: func(n int64) {
			deleted = append(deleted, n)
			// A write of another process: on SQLite it waits for the
			// write lock, which the batch must have let go.
			at := t0.Add(time.Duration(200+len(deleted)) * time.Hour)
			finish(t, other, mustClaim(t, other, store.Run{Task: "b", Trigger: store.TriggerManual, StartedAt: at}),
				store.StatusSucceeded, at)
			res := claim(t, other, store.ClaimRequest{Run: store.Run{Task: "a", Slot: t0, Trigger: store.TriggerReplay, StartedAt: at}})
			if res.Claimed {
				t.Errorf("after batch %d: the slot of the first pruned succeeded run was claimed again", len(deleted))
			}
			task, err := other.Task(ctx, "a")
			if err != nil || task.SettledThrough.Before(before.Before) {
				t.Errorf("after batch %d: task a = %+v, %v; want its watermark at the cut", len(deleted), task, err)
			}
		}}
		res, err := s.Prune(ctx, req)
		if err != nil || res.Runs != 24 {
			t.Fatalf("Prune = %+v, %v; want 24 runs", res, err)
		}
		if want := []int64{10, 20, 24}; !slices.Equal(deleted, want) {
			t.Errorf("runs deleted after each batch: %v, want %v (batches of 10, each committed)", deleted, want)
		}
		if got := len(allRuns(t, s)); got != 1+len(deleted) {
			t.Errorf("%d runs left, want the latest of a and the %d of b", got, len(deleted))
		}
	})
}
