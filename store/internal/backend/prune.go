package backend

import "github.com/catchup/catchup/store"

// PruneInBatches deletes the runs Prune prunes, task by task, batch by
// batch: batch deletes, in one transaction, at most limit of the runs of
// task that go, among those whose id is above after, and returns how many
// went and the largest id among them. A batch that deletes fewer than limit
// ends the task. req.Batched is called after each batch that deleted runs.
// It returns the runs deleted.
func PruneInBatches(tasks []string, req store.PruneRequest,
	batch func(task string, after int64, limit int) (n, last int64, err error)) (int64, error) {
	limit := req.Batch
	if limit <= 0 {
		limit = store.PruneBatch
	}
	var deleted int64
	for _, task := range tasks {
		for after := int64(0); ; {
			n, last, err := batch(task, after, limit)
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
