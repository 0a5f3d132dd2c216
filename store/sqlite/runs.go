package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

const runColumnsLight = `r.id, r.task, r.slot, r.trigger, r.status, r.attempt, r.exit_code, r.signal,
 r.started_at, r.ended_at, r.host, r.pid, r.boot_id, r.error, r.progress, r.checkpoint, r.reason`

const runColumnsFull = runColumnsLight + `, r.stdout_tail, r.stderr_tail`

const insertRunSQL = `INSERT INTO runs (task, slot, trigger, status, attempt, exit_code, signal, started_at,
 ended_at, host, pid, boot_id, stdout_tail, stderr_tail, error, progress, checkpoint, reason)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func insertRun(ctx context.Context, e execer, r store.Run) (int64, error) {
	if r.Attempt == 0 {
		r.Attempt = 1
	}
	res, err := e.ExecContext(ctx, insertRunSQL, r.Task, slotValue(r.Slot), r.Trigger, r.Status, r.Attempt,
		nullInt(r.ExitCode), r.Signal, ms(r.StartedAt), endValue(r.EndedAt), r.Host, r.PID, r.BootID,
		r.StdoutTail, r.StderrTail, r.Error, nullInt(r.Progress), r.Checkpoint, r.Reason)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// taskPauseSQL reads a task's pause and registration; no row: the ledger
// no longer holds it (a replay's claim, a backfill's).
const taskPauseSQL = `SELECT paused_at, paused_until, registered_at, retired_at, updated_at FROM tasks WHERE name = ?`

// Claim implements store.Store. One immediate transaction: the check and the
// insert cannot interleave with another process's claim.
func (s *Ledger) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return store.ClaimResult{}, err
	}
	blocking := `'running', 'succeeded'`
	if req.Force {
		blocking = `'running'`
	}
	slotRunSQL := `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = ? AND r.slot = ? AND r.status IN (` + blocking + `) ORDER BY r.id DESC LIMIT 1`
	queries := []string{taskKnownSQL, insertRunSQL}
	if req.Register != nil {
		queries[0] = upsertTaskSQL
		if req.RegisterIfClaimed {
			queries = append(queries, taskScheduleSQL)
		}
	} else if req.Replay || !req.Registered.IsZero() {
		queries[0] = taskPauseSQL
	}
	if req.Settle != nil {
		queries = append(queries, finishSQL)
	}
	if req.Boot != nil {
		queries = append(queries, bootSQL...)
	}
	if !req.Run.Slot.IsZero() {
		queries = append(queries, slotTouchedSQL, slotRunSQL)
		if !req.Force {
			queries = append(queries, prunedSlotSQL)
		}
		if req.Replay {
			queries = append(queries, lastRecordSQL)
		}
		if req.Checkpoint {
			queries = append(queries, lastCheckpointSQL)
		}
		if req.AskOlderRunning {
			queries = append(queries, olderRunningSQL)
		}
	}
	s.prepare(ctx, queries...) // only those this claim runs
	rt, err := s.beginRelaxed(ctx)
	if err != nil {
		return store.ClaimResult{}, s.wrap("write ledger", err)
	}
	defer rt.rollback()
	tx := preparedTx{s: s, tx: rt.tx}
	// A claim refused (its commit records a held outcome, a boot) is
	// synced before it returns; a claim granted, beside its job's start.
	granted := false
	commit := func() error {
		err := rt.commit(granted)
		if err == nil && req.Settle != nil {
			s.recorded(ctx)
		}
		return s.wrap("write ledger", err)
	}
	if o := req.Settle; o != nil {
		if err := finish(ctx, tx, o.ID, o.Outcome); err != nil {
			return store.ClaimResult{}, s.wrap("write ledger", err)
		}
	}
	changed := false   // registered again since read (ClaimRequest.Updated): refused once the slot's holder is known
	ifClaimed := false // Register waits for the claim's grant (ClaimRequest.RegisterIfClaimed)
	if req.Register != nil {
		if req.RegisterIfClaimed {
			var err error
			if ifClaimed, err = registersIfClaimed(ctx, tx, *req.Register); err != nil {
				return store.ClaimResult{}, s.wrap("read ledger", err)
			}
		}
		if !ifClaimed {
			if err := upsertTask(ctx, tx, *req.Register); err != nil {
				return store.ClaimResult{}, s.wrap("write ledger", err)
			}
		}
	} else if req.Replay || !req.Registered.IsZero() {
		// A replay (a backfill) never registers: its task purged since the
		// scan read it, or purged and registered again, stays as it is
		// (store.ClaimResult.Gone), and a task retired since stays retired
		// (store.ClaimResult.Retired).
		var pausedAt, until, registered, retired, updated int64
		switch err := tx.QueryRowContext(ctx, taskPauseSQL, req.Run.Task).Scan(&pausedAt, &until, &registered, &retired, &updated); {
		case errors.Is(err, sql.ErrNoRows):
			return store.ClaimResult{Gone: true}, commit()
		case err != nil:
			return store.ClaimResult{}, s.wrap("read ledger", err)
		case !req.Registered.IsZero() && fromMS(registered).After(req.Registered):
			return store.ClaimResult{Gone: true}, commit()
		case retired != 0 && store.RefusesRetired(req):
			return store.ClaimResult{Retired: true}, commit()
		case req.RefusePaused && store.InPause(fromMS(pausedAt), fromMS(until), req.Run.Slot):
			return store.ClaimResult{Paused: true}, commit()
		}
		changed = !req.Updated.IsZero() && updated != ms(req.Updated)
	} else {
		if err := firstSeenTask(ctx, tx, req.Run); err != nil {
			return store.ClaimResult{}, s.wrap("write ledger", err)
		}
	}
	if req.Boot != nil {
		if err := seeBoot(ctx, tx, *req.Boot); err != nil {
			return store.ClaimResult{}, s.wrap("write ledger", err)
		}
	}
	var note string
	var touched bool
	if !req.Run.Slot.IsZero() {
		holder, checkpoint, had, err := slotHolder(ctx, tx, req, slotRunSQL)
		touched = had
		switch {
		case err != nil:
			return store.ClaimResult{}, s.wrap("read ledger", err)
		case holder != nil:
			return store.ClaimResult{Run: *holder}, commit()
		}
		note = checkpoint
	}
	if changed {
		return store.ClaimResult{Changed: true}, commit()
	}
	older, err := olderRunning(ctx, tx, req)
	if err != nil {
		return store.ClaimResult{}, s.wrap("read ledger", err)
	}
	if ifClaimed {
		if err := upsertTask(ctx, tx, *req.Register); err != nil {
			return store.ClaimResult{}, s.wrap("write ledger", err)
		}
	}
	r := req.Run
	r.Status = store.StatusRunning
	id, err := insertRun(ctx, tx, r)
	if err != nil {
		return store.ClaimResult{}, s.wrap("write ledger", err)
	}
	granted = true
	if err := commit(); err != nil {
		return store.ClaimResult{}, err
	}
	r.ID = id
	if r.Attempt == 0 {
		r.Attempt = 1
	}
	return store.ClaimResult{Claimed: true, Run: r, Checkpoint: note, Touched: touched, OlderRunning: older, Synced: rt.synced()}, nil
}

// AddRun implements store.Store.
func (s *Ledger) AddRun(ctx context.Context, r store.Run) (int64, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return 0, err
	}
	if onceSQL(r) != "" {
		// A record AddRuns records once (paused, expired) is checked as
		// it checks it, in its immediate transaction: a fire's paused
		// record of a slot a scan recorded paused is left out (id 0).
		ids, err := s.AddRuns(ctx, []store.Run{r})
		if err != nil {
			return 0, err
		}
		return ids[0], nil
	}
	id, err := insertRun(ctx, s.db, r)
	return id, s.wrap("write ledger", err)
}

// finishSQL records an outcome. Its error keeps an interruption it came
// after (store.Store.Finish): an outcome repeated (a lost reply) finds the
// note there already and keeps it. An end before the start is the start.
const finishSQL = `UPDATE runs SET status = ?1, exit_code = ?2, signal = ?3, ended_at = CASE WHEN ?4 = 0 THEN 0 ELSE MAX(?4, started_at) END,
 stdout_tail = ?5, stderr_tail = ?6,
 error = CASE
  WHEN status <> 'running' AND instr(error, '` + store.LateOutcomeNote + `') > 0 THEN error
  WHEN status = 'interrupted' AND error <> '' THEN
   (CASE WHEN ?7 = '' THEN '' ELSE ?7 || '; ' END) || '` + store.LateOutcomeNote + `' || error
  ELSE ?7 END,
 reason = CASE WHEN ?8 <> '' THEN ?8 ELSE ` + backend.RetryStartsSQL + ` END WHERE id = ?9`

// Finish implements store.Store.
func (s *Ledger) Finish(ctx context.Context, id int64, o store.Outcome) error {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return err
	}
	s.prepare(ctx, finishSQL)
	rt, err := s.beginRelaxed(ctx)
	if err != nil {
		return s.wrap("write ledger", err)
	}
	defer rt.rollback()
	err = finish(ctx, preparedTx{s: s, tx: rt.tx}, id, o)
	if err == nil {
		err = rt.commit(false)
	}
	if err == nil {
		s.recorded(ctx)
	}
	return s.wrap("write ledger", err)
}

// finish records run id's outcome through e (the ledger, or a claim's
// transaction).
func finish(ctx context.Context, e execer, id int64, o store.Outcome) error {
	_, err := e.ExecContext(ctx, finishSQL, o.Status, nullInt(o.ExitCode), o.Signal,
		ms(o.EndedAt), o.StdoutTail, o.StderrTail, o.Error, o.Reason, id)
	return err
}
