package backend

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// PruneInBatches deletes the runs Prune prunes, task by task, batch by
// batch: batch deletes, in one transaction, at most limit of the runs of
// task that go, among those whose id is above after, and returns how many
// went and the largest id among them. A batch that deletes fewer than limit
// ends the task; so does one that refuses the task (an error of
// PruneRefuses), which is put in refused. req.Batched is called after each
// batch that deleted runs. It returns the runs deleted.
func PruneInBatches(tasks []string, req store.PruneRequest, refused map[string]error,
	batch func(task string, after int64, limit int) (n, last int64, err error)) (int64, error) {
	limit := req.Batch
	if limit <= 0 {
		limit = store.PruneBatch
	}
	var deleted int64
	for _, task := range tasks {
		for after := int64(0); ; {
			n, last, err := batch(task, after, limit)
			if errors.Is(err, store.ErrGone) || errors.Is(err, store.ErrRetired) {
				refused[task] = err
				break
			}
			if err != nil {
				return deleted, err
			}
			deleted += n
			if n > 0 && req.Batched != nil {
				req.Batched(deleted)
			}
			if n < int64(limit) {
				break
			}
			after = last
		}
	}
	return deleted, nil
}

// PruneChecked lists, sorted, the tasks of req.Of that Prune checks: those
// it may write (not left whole, req.Leave).
func PruneChecked(req store.PruneRequest) []string {
	return slices.DeleteFunc(slices.Sorted(maps.Keys(req.Of)), func(task string) bool { return slices.Contains(req.Leave, task) })
}

// PruneRefuses is why a transaction of Prune refuses task, whose row it
// read (found: with registration registered and retirement retired, zero
// for none): req.Of's store.Of.Refuses, or ErrGone for a row not found,
// wrapped with the task's name; nil when it may be written (a task not in
// req.Of is not checked).
func PruneRefuses(req store.PruneRequest, task string, found bool, registered, retired time.Time) error {
	of, ok := req.Of[task]
	if !ok || of.Registered.IsZero() {
		return nil
	}
	if !found {
		return fmt.Errorf("task %s: %w", task, store.ErrGone)
	}
	if err := of.Refuses(registered, retired); err != nil {
		return fmt.Errorf("task %s: %w", task, err)
	}
	return nil
}

// PruneLeaving is req with the tasks refused left whole too.
func PruneLeaving(req store.PruneRequest, refused map[string]error) store.PruneRequest {
	if len(refused) > 0 {
		req.Leave = append(slices.Clone(req.Leave), slices.Sorted(maps.Keys(refused))...)
	}
	return req
}
