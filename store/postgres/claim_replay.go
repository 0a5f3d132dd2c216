package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/catchup/catchup/store"
)

// lastRecordSQL reads a slot's latest record but its skips.
const lastRecordSQL = `SELECT r.id, r.task, r.slot, r.trigger, r.status, r.attempt, r.exit_code,
 r.signal, r.started_at, r.ended_at, r.host, r.pid, r.boot_id, r.error, r.heartbeat_at, r.progress, r.checkpoint, r.reason
FROM runs r WHERE r.task = $1 AND r.slot = $2 AND r.status <> 'skipped' ORDER BY r.id DESC LIMIT 1`

// givenUp returns run r's slot's latest record (skips aside) when it is
// expired, for a replay's claim to refuse (store.ClaimRequest.Replay): the
// slot was given up since the scan read it. It is read in the claim's
// transaction, before the slot's row is taken; an expiry that commits
// after this read and before the claim's commit is not seen (the claim is
// then granted, and the slot holds both records, as before).
func givenUp(ctx context.Context, tx pgx.Tx, r store.Run) (*store.Run, error) {
	var n runRow
	err := tx.QueryRow(ctx, lastRecordSQL, r.Task, dbSlot(r.Slot)).Scan(n.dest()...)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	case n.run().Status != store.StatusExpired:
		return nil, nil
	}
	return n.run(), nil
}

// changedOrHolder is the answer to a claim of slot r of a task registered
// again since read (store.ClaimRequest.Updated): the slot's holder (a
// running, or unless forced a succeeded run, pruned or not) when it has
// one, else Changed. It reads and writes no slot: the claim's Settle is
// all its commit records.
func (p *Ledger) changedOrHolder(ctx context.Context, tx pgx.Tx, r store.Run, force bool) (store.ClaimResult, error) {
	if !r.Slot.IsZero() {
		var n runRow
		err := tx.QueryRow(ctx, holderSQL, r.Task, dbSlot(r.Slot), force).Scan(n.dest()...)
		switch {
		case err == nil:
			return store.ClaimResult{Run: *n.run()}, p.wrap("write ledger", tx.Commit(ctx))
		case !errors.Is(err, pgx.ErrNoRows):
			return store.ClaimResult{}, p.wrap("read ledger", err)
		}
	}
	return store.ClaimResult{Changed: true}, p.wrap("write ledger", tx.Commit(ctx))
}
