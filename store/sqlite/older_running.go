package sqlite

import (
	"context"

	"github.com/catchup/catchup/store"
)

// olderRunningSQL tells whether a task has a running record of a slot
// before the given one (store.ClaimRequest.AskOlderRunning): read from the
// task's running records (runs_task_status), never from its slots before
// (runs_task_slot), which grow with its history.
const olderRunningSQL = `SELECT EXISTS (SELECT 1 FROM runs INDEXED BY runs_task_status
 WHERE task = ? AND status = 'running' AND slot < ?)`

// olderRunning is ClaimResult.OlderRunning, read in the claim's
// transaction when the claim asks for it (a slot's claim only).
func olderRunning(ctx context.Context, tx preparedTx, req store.ClaimRequest) (bool, error) {
	if !req.AskOlderRunning || req.Run.Slot.IsZero() {
		return false, nil
	}
	var older bool
	err := tx.QueryRowContext(ctx, olderRunningSQL, req.Run.Task, req.Run.Slot.Unix()).Scan(&older)
	return older, err
}
