package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/catchup/catchup/store"
)

// prunedSlotSQL finds a slot whose succeeded run was pruned.
const prunedSlotSQL = `SELECT run_id FROM pruned_slots WHERE task = ? AND slot = ?`

// slotTouchedSQL tells whether a slot has a run or a pruned succeeded one.
// A missed slot, the claim of a replay, has neither: its claim then skips
// the lookups of slotHolder.
const slotTouchedSQL = `SELECT EXISTS (SELECT 1 FROM runs WHERE task = ?1 AND slot = ?2)
 OR EXISTS (SELECT 1 FROM pruned_slots WHERE task = ?1 AND slot = ?2)`

// lastRecordSQL reads a slot's latest record but its skips: a replay's
// claim refuses a slot it finds expired (ClaimRequest.Replay).
const lastRecordSQL = `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = ? AND r.slot = ? AND r.status <> 'skipped' ORDER BY r.id DESC LIMIT 1`

// slotHolder finds, in the claim's transaction, the run that holds req's
// slot (slotRunSQL: a running or, unless forced, succeeded one; for a
// replay, its latest record if expired; or a succeeded run since pruned),
// else the slot's last checkpoint when asked;
// touched says whether the slot had any run before.
func slotHolder(ctx context.Context, tx preparedTx, req store.ClaimRequest, slotRunSQL string) (holder *store.Run, note string, touched bool, err error) {
	task, slot := req.Run.Task, req.Run.Slot.Unix()
	if err := tx.QueryRowContext(ctx, slotTouchedSQL, task, slot).Scan(&touched); err != nil || !touched {
		return nil, "", false, err
	}
	var n nullRun
	err = tx.QueryRowContext(ctx, slotRunSQL, task, slot).Scan(n.dest()...)
	switch {
	case err == nil:
		return n.run(), "", true, nil
	case !errors.Is(err, sql.ErrNoRows):
		return nil, "", true, err
	}
	if req.Replay {
		err := tx.QueryRowContext(ctx, lastRecordSQL, task, slot).Scan(n.dest()...)
		switch {
		case err == nil && n.run().Status == store.StatusExpired:
			return n.run(), "", true, nil // given up since the scan read it
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return nil, "", true, err
		}
	}
	if !req.Force {
		h := store.Run{Task: task, Slot: time.Unix(slot, 0).UTC(), Status: store.StatusSucceeded}
		err := tx.QueryRowContext(ctx, prunedSlotSQL, task, slot).Scan(&h.ID)
		switch {
		case err == nil:
			return &h, "", true, nil // a slot whose succeeded run was pruned stays done
		case !errors.Is(err, sql.ErrNoRows):
			return nil, "", true, err
		}
	}
	if req.Checkpoint {
		err := tx.QueryRowContext(ctx, lastCheckpointSQL, task, slot).Scan(&note)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, "", true, err
		}
	}
	return nil, note, true, nil
}
