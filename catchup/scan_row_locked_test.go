package catchup

import (
	"context"
	"fmt"
	"testing"

	"github.com/catchup/catchup/store"
)

// rowLockedOnce is a real ledger seen as a shared one whose first Claim
// (claim) or first LockTask (else) fails as a statement that gave up
// waiting for the task's row, which another session held past the lock
// timeout (store/postgres marks 55P03 with store.ErrLedgerLocked): the
// ledger answered.
type rowLockedOnce struct {
	store.Store
	claim, failed bool
}

func (r *rowLockedOnce) rowLocked(what string) error {
	r.failed = true
	return fmt.Errorf("%s ledger db:5432/x: %w: ERROR: canceling statement due to lock timeout (SQLSTATE 55P03)", what, store.ErrLedgerLocked)
}

func (r *rowLockedOnce) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if r.claim && !r.failed {
		return store.ClaimResult{}, r.rowLocked("write")
	}
	return r.Store.Claim(ctx, req)
}

func (r *rowLockedOnce) LockTask(ctx context.Context, lk store.TaskLock) (func(), bool, error) {
	if !r.claim && !r.failed {
		return nil, false, r.rowLocked("lock task " + lk.Task + " in")
	}
	return r.Store.LockTask(ctx, lk)
}

func (r *rowLockedOnce) Shared() bool { return true }

// TestScanRowLockedIsNotUnreachable: a replay whose claim, or whose task
// lock, gave up waiting for the task's row, held by another session of the
// shared ledger past the lock timeout (an operator's psql left in a
// transaction), is not run and left for the next scan, its later slots
// behind it, as one that could not reach the ledger; but scan says what
// happened, the ledger reached and the row held, and the slot's cause is
// ledger-locked, not ledger-unreachable (before, "could not reach the
// ledger", cause ledger-unreachable: the ledger was reachable). The next
// scan replays the three slots, oldest first.
func TestScanRowLockedIsNotUnreachable(t *testing.T) {
	t.Parallel()
	for backend, open := range sharedLedgers {
		for fault, claim := range map[string]bool{"claim": true, "lock": false} {
			t.Run(backend+"/"+fault, func(t *testing.T) {
				st, db := open(t)
				m, job, _ := hourlyThreeMissed(t, st, db)
				scanRefusedThenReplayed(t, st, &rowLockedOnce{Store: st, claim: claim}, m, job,
					"another session held the task's row past the lock timeout", "could not reach the ledger", CauseLedgerLocked)
			})
		}
	}
}
