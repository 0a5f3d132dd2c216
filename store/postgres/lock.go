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

// Connections implements store.Connections: the pool's bound (pgxpool's
// default, or the DSN's pool_max_conns).
func (p *Ledger) Connections() int { return int(p.pool.Config().MaxConns) }

// A task's fleet-wide lock is its row in task_locks, naming the run that
// holds it; no connection is held meanwhile. The holder is alive while its
// run is running and its heartbeat (renewed by Heartbeat) is fresher than
// the lease; a taker judges that after locking the row, in a statement of
// its own, so that it sees every holder's claim (committed before its lock).
const (
	// insertLockSQL takes a free lock for run $2 unless an earlier claim of
	// the task waits for it (waitingSQL), in one statement (a fire's round
	// trips): inserted says it was taken; waiting, that such a claim waits
	// (a holder still running before its row is read counts as one).
	insertLockSQL = `WITH q AS (SELECT ` + waitingSQL + ` AS waiting),
 ins AS (INSERT INTO task_locks (task, run_id) SELECT $1, $2 WHERE NOT (SELECT waiting FROM q)
 ON CONFLICT (task) DO NOTHING RETURNING run_id)
SELECT EXISTS (SELECT 1 FROM ins), (SELECT waiting FROM q)`
	// waitingSQL: is there a claim of task $1 made before run $2 ($2's slot
	// not before its slot; a run without a slot on either side goes by
	// claim order) that is still running and has beaten within $4 ms of $3
	// (waitingFresh): a fire waiting for the lock.
	waitingSQL = `EXISTS (SELECT 1 FROM runs w, runs t WHERE t.id = $2 AND w.task = $1
 AND w.status = 'running' AND w.id < $2
 AND (w.slot IS NULL OR t.slot IS NULL OR w.slot <= t.slot)
 AND COALESCE(w.heartbeat_at, w.started_at) > $3::timestamptz - make_interval(secs => $4::bigint / 1000.0))`
	holderLockSQL  = `SELECT run_id FROM task_locks WHERE task = $1 FOR UPDATE`
	holderAliveSQL = `SELECT EXISTS (SELECT 1 FROM runs WHERE id = $1 AND status = 'running'
 AND ($3::bigint <= 0 OR COALESCE(heartbeat_at, started_at) > $2::timestamptz - make_interval(secs => $3::bigint / 1000.0)))`
	takeLockSQL    = `UPDATE task_locks SET run_id = $2 WHERE task = $1`
	releaseLockSQL = `DELETE FROM task_locks WHERE task = $1 AND run_id = $2`
	// handOverLockSQL passes a lock from a run to the run claimed after it
	// (ClaimRequest.LockFrom), if it still holds it.
	handOverLockSQL = `UPDATE task_locks SET run_id = $3 WHERE task = $1 AND run_id = $2`
)

// waitingFresh is how long ago a claim waiting for a task's lock must have
// beaten to go before a later one when no lease is given or the lease is
// shorter: a waiter beats each time it tries the lock (every second), so
// a lease under a second took live waiters for gone between two tries.
// With a longer lease, the lease: heartbeats carry their writer's clock
// and are judged by the reader's, and the hosts' clocks may differ by less
// than the lease (docs/distributed.md), so a shorter window would take a
// live waiter on a host whose clock lags for gone. One that stopped (its
// host frozen, its catchup killed, its skip not recorded) holds no one
// back past it, as a holder that stopped would.
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
	fresh := max(waitingFresh, l.Lease)
	var holder int64
	var waiting bool
	for tries := 0; ; tries++ {
		var inserted bool
		err = tx.QueryRow(ctx, insertLockSQL, l.Task, l.RunID, dbTime(l.Now), fresh.Milliseconds()).Scan(&inserted, &waiting)
		if err != nil || inserted {
			return inserted, commitIf(ctx, tx, err)
		}
		// Held, or an earlier claim waits: read the holder. Its row may
		// be gone meanwhile (its run ended and let go, counted waiting
		// while it ran): the lock is free, and the insert tries again,
		// once more if an earlier claim still seemed to wait.
		if p.lockRaced != nil {
			p.lockRaced()
		}
		err = tx.QueryRow(ctx, holderLockSQL, l.Task).Scan(&holder)
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
		if waiting && tries > 0 {
			return false, nil // free, but an earlier claim waits for it
		}
	}
	switch {
	case err != nil:
		return false, err
	case holder == l.RunID:
		return true, tx.Commit(ctx) // it holds the lock already (handed over with its claim)
	}
	var alive bool
	if err := tx.QueryRow(ctx, holderAliveSQL, holder, dbTime(l.Now), l.Lease.Milliseconds()).Scan(&alive); err != nil {
		return false, err
	}
	if alive || waiting {
		// A dead holder's run is no waiting claim (both are judged by the
		// lease), so waiting counts only claims that go first.
		return false, nil
	}
	if _, err := tx.Exec(ctx, takeLockSQL, l.Task, l.RunID); err != nil {
		return false, err
	}
	if err := tx.Commit(ctx); err != nil {
		return false, err
	}
	if l.TookFrom != nil {
		*l.TookFrom = holder
	}
	return true, nil
}

// commitIf commits tx when err is nil, else returns err.
func commitIf(ctx context.Context, tx pgx.Tx, err error) error {
	if err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// releaseTimeout bounds giving task locks back (one, or all those Close
// gives back): a ledger that does not answer must not hold catchup.
const releaseTimeout = 5 * time.Second

// releaseLock gives a task lock back. If that fails, the lock still frees
// itself: its run is no longer running once its outcome is recorded.
func (p *Ledger) releaseLock(task string, runID int64) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	p.releaseLockIn(ctx, task, runID)
}

// releaseLockIn is releaseLock within ctx.
func (p *Ledger) releaseLockIn(ctx context.Context, task string, runID int64) {
	p.pool.Exec(ctx, releaseLockSQL, task, runID)
}
