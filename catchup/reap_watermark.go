package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// lowerForStale lowers, in tasks (a dry run's, read without marking its
// dead runs), each task's watermark below the slot of its stale running
// runs, as marking one interrupted lowers it in the ledger
// (store.Store.Interrupt), never below the prune floor: the dry run reads
// what the scan then reads.
func lowerForStale(ctx context.Context, st store.Store, tasks []store.Task, stale map[int64]bool) error {
	if len(stale) == 0 {
		return nil
	}
	running, err := st.Running(ctx)
	if err != nil {
		return err
	}
	for _, r := range running {
		if !stale[r.ID] || r.Slot.IsZero() {
			continue
		}
		for i := range tasks {
			if t := &tasks[i]; t.Name == r.Task && !t.SettledThrough.Before(r.Slot) {
				t.SettledThrough = r.Slot.Add(-time.Second)
				if t.SettledThrough.Before(t.PrunedThrough) {
					t.SettledThrough = t.PrunedThrough
				}
			}
		}
	}
	return nil
}

// lowerTaskForStale is lowerForStale for the readers that write nothing
// (ls, metrics, explain, calendar), each task of tasks lowered in place:
// they read what the next scan reads, as scan --dry-run does. Before, a
// dead run of a slot behind the watermark (a run --slot fire that changed
// the schedule counts it from now) read as passed by them, nothing missed,
// while scan --dry-run and scan replayed it.
func lowerTaskForStale(ctx context.Context, st store.Store, tasks []*store.Task, stale map[int64]bool) error {
	if len(stale) == 0 {
		return nil
	}
	copies := make([]store.Task, len(tasks))
	for i, t := range tasks {
		copies[i] = *t
	}
	if err := lowerForStale(ctx, st, copies, stale); err != nil {
		return err
	}
	for i, t := range tasks {
		t.SettledThrough = copies[i].SettledThrough
	}
	return nil
}
