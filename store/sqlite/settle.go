package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

// Interrupt implements store.Store. One immediate transaction: marking the run and
// lowering the watermark cannot interleave with a SetSettled. The end is
// never before the start (a clock behind it: see interruptSQL, postgres).
func (s *Ledger) Interrupt(ctx context.Context, id int64, at time.Time, reason string) (bool, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return false, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return false, s.wrap("write ledger", err)
	}
	defer tx.Rollback()
	var task string
	var slot sql.NullInt64
	err = tx.QueryRowContext(ctx, `UPDATE runs SET status = 'interrupted', ended_at = MAX(?, started_at), error = ?,
 reason = `+backend.RetryCutSQL+`
WHERE id = ? AND status = 'running' RETURNING task, slot`, ms(at), reason, id).Scan(&task, &slot)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, s.wrap("write ledger", err)
	}
	if slot.Valid {
		if _, err := tx.ExecContext(ctx, lowerSettledSQL, task, slot.Int64); err != nil {
			return false, s.wrap("write ledger", err)
		}
	}
	return true, s.wrap("write ledger", tx.Commit())
}

// GiveBack implements store.Store. One immediate transaction, as
// Interrupt: no SetSettled comes between a record and its watermark.
func (s *Ledger) GiveBack(ctx context.Context, ids []int64, o store.Outcome) error {
	ctx = uncancelled(ctx)
	if len(ids) == 0 {
		return nil
	}
	if err := s.unmoved(); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return s.wrap("write ledger", err)
	}
	defer tx.Rollback()
	for _, id := range ids {
		var task string
		var slot sql.NullInt64
		err := tx.QueryRowContext(ctx, `UPDATE runs SET status = ?, exit_code = ?, ended_at = ?, error = ?
WHERE id = ? RETURNING task, slot`, o.Status, nullInt(o.ExitCode), ms(o.EndedAt), o.Error, id).Scan(&task, &slot)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return s.wrap("write ledger", err)
		case slot.Valid:
			if _, err := tx.ExecContext(ctx, lowerSettledSQL, task, slot.Int64); err != nil {
				return s.wrap("write ledger", err)
			}
		}
	}
	return s.wrap("write ledger", tx.Commit())
}

// lowerSettledSQL unsettles slot ?2 (unix seconds) of task ?1: a
// watermark (unix ms) at or after it moves to one second before it, but
// never below the task's prune floor: a dead run of a slot at or below it (a
// run --slot --force of a pruned day) is not replayed, rather than every
// pruned slot after it coming back missed.
const lowerSettledSQL = `UPDATE tasks SET settled_through = MAX((?2 - 1) * 1000, pruned_through)
WHERE name = ?1 AND settled_through >= ?2 * 1000`

// setSettledSQL advances the watermark of task ?1 to ?2 (unix ms)
// unless a run of the task in (watermark, ?2] is running or interrupted and
// no later record of its slot settles it (backend.SettledSlotSQL: a replay
// that succeeded settles the slot its interrupted run left, and so does a
// coalesced replay's fold of it, or its paused record).
// Slots are whole seconds, so "slot*1000 > w" is "slot > w/1000" (integer
// division, times after 1970). One statement, run under SQLite's write
// lock: nothing can change the runs between the check and the write.
const setSettledSQL = `UPDATE tasks SET settled_through = ?2
WHERE name = ?1 AND settled_through < ?2 AND NOT EXISTS (
  SELECT 1 FROM runs r WHERE r.task = ?1 AND r.status IN ('running', 'interrupted')
  AND r.slot > tasks.settled_through / 1000 AND r.slot <= ?2 / 1000
  AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.task = r.task AND o.slot = r.slot AND o.id > r.id
    AND ` + backend.SettledSlotSQL + `))`

// setSettledOfSQL is setSettledSQL for the task registered at ?3 (unix
// ms) or before: one purged and registered again since is left alone.
// setSettledLiveSQL leaves alone one retired since too (store.Of.Live).
const (
	setSettledOfSQL   = setSettledSQL + ` AND registered_at <= ?3`
	setSettledLiveSQL = setSettledOfSQL + ` AND retired_at = 0`
)

// SetSettled implements store.Store.
func (s *Ledger) SetSettled(ctx context.Context, task string, through time.Time) error {
	return s.SetSettledOf(ctx, task, store.Of{}, through)
}

// SetSettledOf implements store.Store: the registration (and, Live, the
// retirement) is checked in the write's statement, and read again, only
// when it changed nothing, to tell why.
func (s *Ledger) SetSettledOf(ctx context.Context, task string, of store.Of, through time.Time) error {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return err
	}
	if through.IsZero() && of.Registered.IsZero() {
		return s.mustHaveTask(ctx, task)
	}
	var at, retired int64 // the task's registration and retirement, read when nothing changed
	err := s.write(ctx, func(ctx context.Context, e readWriter) error {
		if !through.IsZero() {
			q, args := setSettledSQL, []any{task, ms(through)}
			switch {
			case of.Live && !of.Registered.IsZero():
				q, args = setSettledLiveSQL, append(args, ms(of.Registered))
			case !of.Registered.IsZero():
				q, args = setSettledOfSQL, append(args, ms(of.Registered))
			}
			res, err := e.ExecContext(ctx, q, args...)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 1 {
				return err
			}
		}
		// Nothing changed: is the task there, as read?
		return e.QueryRowContext(ctx, `SELECT registered_at, retired_at FROM tasks WHERE name = ?`, task).Scan(&at, &retired)
	})
	switch {
	case errors.Is(err, sql.ErrNoRows) && !of.Registered.IsZero():
		return fmt.Errorf("task %s: %w", task, store.ErrGone)
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("task %q: %w", task, store.ErrNotFound)
	case err == nil && at != 0:
		if err := of.Refuses(fromMS(at), fromMS(retired)); err != nil {
			return fmt.Errorf("task %s: %w", task, err)
		}
	}
	return s.wrap("write ledger", err)
}

// mustHaveTask returns an error wrapping ErrNotFound for an unknown task.
func (s *Ledger) mustHaveTask(ctx context.Context, task string) error {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM tasks WHERE name = ?`, task).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("task %q: %w", task, store.ErrNotFound)
	}
	return s.wrap("read ledger", err)
}

// SetProgress implements store.Store.
func (s *Ledger) SetProgress(ctx context.Context, id int64, percent int, note string) error {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return err
	}
	if err := backend.CheckPercent(id, percent); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE runs SET progress = ?, checkpoint = CASE WHEN ? = '' THEN checkpoint ELSE ? END
WHERE id = ? AND status = 'running'`, percent, note, note, id)
	if err != nil {
		return s.wrap("write ledger", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.wrap("write ledger", err)
	}
	if n == 0 {
		return fmt.Errorf("run %d is not running: %w", id, store.ErrNotFound)
	}
	return nil
}

// LastCheckpoint implements store.Store.
func (s *Ledger) LastCheckpoint(ctx context.Context, task string, slot time.Time) (string, bool, error) {
	ctx = uncancelled(ctx)
	if slot.IsZero() {
		return "", false, nil
	}
	var note string
	err := s.queryRow(ctx, lastCheckpointSQL, task, slot.Unix()).Scan(&note)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.wrap("read ledger", err)
	}
	return note, true, nil
}

const lastCheckpointSQL = `SELECT checkpoint FROM runs
WHERE task = ? AND slot = ? AND status = 'interrupted' AND checkpoint <> '' ORDER BY id DESC LIMIT 1`

// statusCountsSQL reads the (task, status) index alone.
const statusCountsSQL = `SELECT task, status, count(*) FROM runs GROUP BY task, status`

// statusCountSQL seeks the (task, status) index to one task's runs of one
// status.
const statusCountSQL = `SELECT count(*) FROM runs WHERE task = ? AND status = ?`

// StatusCount implements store.Store.
func (s *Ledger) StatusCount(ctx context.Context, task, status string) (int64, error) {
	ctx = uncancelled(ctx)
	var n int64
	err := s.db.QueryRowContext(ctx, statusCountSQL, task, status).Scan(&n)
	return n, s.wrap("read ledger", err)
}

// StatusCounts implements store.Store.
func (s *Ledger) StatusCounts(ctx context.Context) (map[string]map[string]int64, error) {
	ctx = uncancelled(ctx)
	rows, err := s.db.QueryContext(ctx, statusCountsSQL)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	out, err := backend.CollectCounts(rows)
	return out, s.wrap("read ledger", err)
}
