package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
	"github.com/jackc/pgx/v5"
)

// claimSQL is the claim: one statement on the slots primary key. It
// inserts the slot's row, or takes over an existing one whose slot nobody
// runs and (unless forced) nobody ran successfully. It returns the new run's
// id and whether the slot's row was there before (xmax is 0 for a row this
// statement inserted), or no row when the slot is held. Concurrent claims of one slot queue
// on its row and re-check the condition against the committed winner.
const claimSQL = `INSERT INTO slots AS s (task, slot, running_id) VALUES ($1, $2, nextval('runs_id_seq'))
ON CONFLICT (task, slot) DO UPDATE SET running_id = excluded.running_id
WHERE s.running_id IS NULL AND (s.succeeded_id IS NULL OR $3::boolean)
RETURNING s.running_id, NOT (s.xmax = 0)`

// holderSQL reads the run that holds a slot a claim was refused. A
// holder that was pruned (only a succeeded run can be) is the pruned run's
// id, task, slot and status.
const holderSQL = `SELECT h.id, s.task, s.slot, r.trigger, COALESCE(r.status, 'succeeded'), r.attempt, r.exit_code,
 r.signal, r.started_at, r.ended_at, r.host, r.pid, r.boot_id, r.error, r.heartbeat_at, r.progress, r.checkpoint, r.reason
FROM slots s
CROSS JOIN LATERAL (SELECT CASE WHEN $3::boolean THEN s.running_id ELSE GREATEST(s.running_id, s.succeeded_id) END AS id) h
LEFT JOIN runs r ON r.id = h.id
WHERE s.task = $1 AND s.slot = $2 AND h.id IS NOT NULL`

// olderRunningSQL, added to the claim's insert of its run, tells whether
// the task has a running record of a slot before the claimed one
// (ClaimRequest.AskOlderRunning): read from the task's running records
// (runs_task_status), in the insert's statement, no round trip of its own.
const olderRunningSQL = `, EXISTS (SELECT 1 FROM runs o WHERE o.task = $2 AND o.status = 'running' AND o.slot < $3)`

// Claim implements store.Store.
func (p *Ledger) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	asked := time.Now() // only for how long the claim waits: see bornAt
	tx, err := p.begin(ctx)
	if err != nil {
		return store.ClaimResult{}, p.wrap("write ledger", err)
	}
	defer tx.Rollback(ctx)
	if o := req.Settle; o != nil {
		if err := settle(ctx, tx, o.ID, o.Outcome); err != nil {
			return store.ClaimResult{}, p.wrap("write ledger", err)
		}
	}
	changed := false   // registered again since read (ClaimRequest.Updated): refused once the slot is known not given up nor held
	ifClaimed := false // Register waits for the claim's grant (ClaimRequest.RegisterIfClaimed)
	switch {
	case req.Register != nil && req.RegisterIfClaimed:
		ifClaimed, err = registersIfClaimed(ctx, tx, *req.Register)
	case req.Register != nil:
		err = upsertTask(ctx, tx, *req.Register, false)
	case req.Replay || !req.Registered.IsZero():
		// A replay (a backfill) never registers: its task purged since the
		// scan read it, or purged and registered again, stays as it is
		// (store.ClaimResult.Gone), and a task retired since stays retired
		// (store.ClaimResult.Retired). The row's lock holds off a purge until
		// this claim commits (Forget deletes the task first, then its
		// runs: this claim's too).
		var pausedAt, until, retired *time.Time
		var registered, updated time.Time
		switch err = tx.QueryRow(ctx, `SELECT paused_at, paused_until, registered_at, retired_at, updated_at FROM tasks WHERE name = $1 FOR KEY SHARE`,
			req.Run.Task).Scan(&pausedAt, &until, &registered, &retired, &updated); {
		case errors.Is(err, pgx.ErrNoRows):
			return store.ClaimResult{Gone: true}, p.wrap("write ledger", tx.Commit(ctx))
		case err != nil:
			return store.ClaimResult{}, p.wrap("read ledger", err)
		case !req.Registered.IsZero() && registered.After(req.Registered):
			return store.ClaimResult{Gone: true}, p.wrap("write ledger", tx.Commit(ctx))
		case retired != nil && store.RefusesRetired(req):
			return store.ClaimResult{Retired: true}, p.wrap("write ledger", tx.Commit(ctx))
		case req.RefusePaused && store.InPause(fromDB(pausedAt), fromDB(until), req.Run.Slot):
			return store.ClaimResult{Paused: true}, p.wrap("write ledger", tx.Commit(ctx))
		}
		changed = !req.Updated.IsZero() && !updated.Equal(req.Updated)
	default:
		// A task first seen through a run is registered as of that run's
		// slot (or start), so that the slot is covered by the missed rule.
		_, err = tx.Exec(ctx, `INSERT INTO tasks (name, registered_at, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (name) DO NOTHING`, req.Run.Task, dbTime(backend.FirstSeen(req.Run)), dbTime(req.Run.StartedAt))
	}
	if err == nil && req.Boot != nil {
		err = seeBoot(ctx, tx, *req.Boot)
	}
	if err != nil {
		return store.ClaimResult{}, p.wrap("write ledger", err)
	}
	r := req.Run
	r.ID, r.Status, r.Heartbeat = 0, store.StatusRunning, r.StartedAt
	if r.Attempt == 0 {
		r.Attempt = 1
	}
	var touched bool
	if req.Replay && !r.Slot.IsZero() {
		switch given, err := givenUp(ctx, tx, r); {
		case err != nil:
			return store.ClaimResult{}, p.wrap("read ledger", err)
		case given != nil: // refused, as a slot that ran
			return store.ClaimResult{Run: *given}, p.wrap("write ledger", tx.Commit(ctx))
		}
	}
	if changed {
		// The slot's holder first, as on SQLite: a slot running (another
		// host's run, whose claim may yet be given back) or done is
		// refused for it; only a slot nobody holds is refused as Changed.
		return p.changedOrHolder(ctx, tx, r, req.Force)
	}
	if !r.Slot.IsZero() {
		var id int64
		// The holder is read under the slot's row lock that the refused
		// claim took, so it cannot vanish in between; the loop is only a
		// guard.
		for try := 0; id == 0; try++ {
			err := tx.QueryRow(ctx, claimSQL, r.Task, dbSlot(r.Slot), req.Force).Scan(&id, &touched)
			if err == nil {
				break
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return store.ClaimResult{}, p.wrap("write ledger", err)
			}
			var n runRow
			err = tx.QueryRow(ctx, holderSQL, r.Task, dbSlot(r.Slot), req.Force).Scan(n.dest()...)
			switch {
			case err == nil:
				return store.ClaimResult{Run: *n.run()}, p.wrap("write ledger", tx.Commit(ctx))
			case !errors.Is(err, pgx.ErrNoRows) || try == 2:
				return store.ClaimResult{}, p.wrap("read ledger", fmt.Errorf("slot %s %v: claim refused, holder unknown: %w", r.Task, r.Slot, err))
			}
		}
		r.ID = id
	}
	var note string
	if req.Checkpoint && !r.Slot.IsZero() {
		err := tx.QueryRow(ctx, lastCheckpointSQL, r.Task, dbSlot(r.Slot)).Scan(&note)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return store.ClaimResult{}, p.wrap("read ledger", err)
		}
	}
	r.Heartbeat = bornAt(r.StartedAt, asked)
	// The server's clock comes back with the run's id (serverClock): a
	// daemon, open for months, keeps its reading fresh by its fires.
	var at time.Time
	var older bool
	insert, into := insertRunSQL+` RETURNING id, clock_timestamp()`, []any{&r.ID, &at}
	if req.AskOlderRunning && !r.Slot.IsZero() {
		insert, into = insert+olderRunningSQL, append(into, &older)
	}
	if err := insertClaimed(ctx, tx, req, insert, insertArgs(r.ID, r, ""), into, ifClaimed); err != nil {
		return store.ClaimResult{}, p.wrap("write ledger", err)
	}
	p.clock.saw(at)
	if req.LockFrom != 0 {
		if _, err := tx.Exec(ctx, handOverLockSQL, r.Task, req.LockFrom, r.ID); err != nil {
			return store.ClaimResult{}, p.wrap("write ledger", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return store.ClaimResult{}, p.wrap("write ledger", err)
	}
	return store.ClaimResult{Claimed: true, Run: r, Checkpoint: fromText(note), Touched: touched, OlderRunning: older}, nil
}

// bornAt is a claimed run's first heartbeat: its start, on the caller's
// clock, plus how long the claim waited since it was asked for (another
// session's lock of the task's row, a stalled host's, a busy server), when
// that is a second or more (a claim that waited for nothing beats at its
// start, as on SQLite). A claim that waited longer than the lease wrote a
// run already dead by it, and another host's claim of the slot a moment
// later took it for dead and ran the slot beside it. Only the wait is
// measured here (monotonic): the clock stays the caller's (CATCHUP_NOW).
func bornAt(started, asked time.Time) time.Time {
	if waited := time.Since(asked); waited >= time.Second {
		return started.Add(waited)
	}
	return started
}
