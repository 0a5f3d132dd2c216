package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/catchup/catchup/store"
)

// Shared implements store.Store: every host of a fleet uses this ledger.
func (p *Ledger) Shared() bool { return true }

// A task's fleet-wide lock is its row in task_locks, naming the run that
// holds it; no connection is held meanwhile. The holder is alive while its
// run is running and its heartbeat (renewed by Heartbeat) is fresher than
// the lease; a taker judges that after locking the row, in a statement of
// its own, so that it sees every holder's claim (committed before its lock).
const (
	insertLockSQL  = `INSERT INTO task_locks (task, run_id) VALUES ($1, $2) ON CONFLICT (task) DO NOTHING RETURNING run_id`
	holderLockSQL  = `SELECT run_id FROM task_locks WHERE task = $1 FOR UPDATE`
	holderAliveSQL = `SELECT EXISTS (SELECT 1 FROM runs WHERE id = $1 AND status = 'running'
 AND ($3::bigint <= 0 OR COALESCE(heartbeat_at, started_at) > $2::timestamptz - make_interval(secs => $3::bigint / 1000.0)))`
	takeLockSQL = `UPDATE task_locks SET run_id = $2 WHERE task = $1`
	// waitingBeforeSQL: is there a claim of the task made before run $2
	// ($2's slot not before its slot; a run without a slot on either side
	// goes by claim order) that is still running, is not the lock's holder
	// ($3) and has beaten within $5 ms of $4 (waitingFresh): a fire waiting
// for the lock.
	waitingBeforeSQL = `SELECT EXISTS (SELECT 1 FROM runs w, runs t WHERE t.id = $2 AND w.task = $1
 AND w.status = 'running' AND w.id < $2 AND w.id <> $3
 AND (w.slot IS NULL OR t.slot IS NULL OR w.slot <= t.slot)
 AND COALESCE(w.heartbeat_at, w.started_at) > $4::timestamptz - make_interval(secs => $5::bigint / 1000.0))`
	releaseLockSQL = `DELETE FROM task_locks WHERE task = $1 AND run_id = $2`
	// handOverLockSQL passes a lock from a run to the run claimed after it
	// (ClaimRequest.LockFrom), if it still holds it.
	handOverLockSQL = `UPDATE task_locks SET run_id = $3 WHERE task = $1 AND run_id = $2`
)

// waitingFresh is how long ago a claim waiting for a task's lock must have
// beaten to go before a later one when no lease is given: a waiter beats
// each time it tries the lock (every second). With a lease, the lease:
// heartbeats carry their writer's clock and are judged by the reader's, and
// the hosts' clocks may differ by less than the lease (docs/distributed.md),
// so a shorter window would take a live waiter on a host whose clock lags
// for gone. One that stopped (its host frozen, its catchup killed, its skip
// not recorded) holds no one back past it, as a holder that stopped would.
const waitingFresh = 10 * time.Second

// LockTask implements store.Store. ok is false, with a no-op release, when
// another live run, on any host, holds the lock, or when the lock is free
// but an earlier claim of a slot not after this run's still waits for it
// (see waitingBeforeSQL): the lock goes to the task's claims oldest first,
// not to the host that asks first once it comes free. The ledger lets go of its
// connections soon after (letGo): a run holds none while its command runs.
func (p *Ledger) LockTask(ctx context.Context, l store.TaskLock) (func(), bool, error) {
	ok, err := p.takeLock(ctx, l)
	p.letGo()
	if err != nil || !ok {
		return func() {}, false, p.wrap("lock task "+l.Task+" in ledger", err)
	}
	p.mu.Lock()
	p.locks[l.Task] = l.RunID
	p.mu.Unlock()
	var once sync.Once
	release := func() {
		once.Do(func() {
			p.mu.Lock()
			_, held := p.locks[l.Task]
			delete(p.locks, l.Task)
			p.mu.Unlock()
			if held { // else Close got there first
				p.releaseLock(l.Task, l.RunID)
			}
		})
	}
	return release, true, nil
}

// takeLock is LockTask's transaction.
func (p *Ledger) takeLock(ctx context.Context, l store.TaskLock) (bool, error) {
	tx, err := p.begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx)
	var holder int64
	taken := false
	for {
		err = tx.QueryRow(ctx, insertLockSQL, l.Task, l.RunID).Scan(&holder)
		if err == nil {
			taken = true
			break
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return false, err
		}
		// Held: read the holder. Its row may be gone meanwhile (its run
		// ended and let go): the lock is free, and the insert tries again.
		if p.lockRaced != nil {
			p.lockRaced()
		}
		err = tx.QueryRow(ctx, holderLockSQL, l.Task).Scan(&holder)
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
	}
	if err != nil {
		return false, err
	}
	if !taken && holder == l.RunID {
		return true, tx.Commit(ctx) // it holds the lock already (handed over with its claim)
	}
	if !taken {
		var alive bool
		if err := tx.QueryRow(ctx, holderAliveSQL, holder, dbTime(l.Now), l.Lease.Milliseconds()).Scan(&alive); err != nil {
			return false, err
		}
		if alive {
			return false, nil
		}
		if _, err := tx.Exec(ctx, takeLockSQL, l.Task, l.RunID); err != nil {
			return false, err
		}
	}
	fresh := waitingFresh
	if l.Lease > 0 {
		fresh = l.Lease
	}
	var waiting bool
	err = tx.QueryRow(ctx, waitingBeforeSQL, l.Task, l.RunID, holder, dbTime(l.Now), fresh.Milliseconds()).Scan(&waiting)
	if err != nil || waiting {
		return false, err // the rollback gives the lock back as it was
	}
	return true, tx.Commit(ctx)
}

// releaseLock gives a task lock back. If that fails, the lock still frees
// itself: its run is no longer running once its outcome is recorded.
func (p *Ledger) releaseLock(task string, runID int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.pool.Exec(ctx, releaseLockSQL, task, runID)
}
