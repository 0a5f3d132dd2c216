package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// Forget implements store.Lifecycle.
func (s *Ledger) Forget(ctx context.Context, task string, at time.Time, purge bool) (int64, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return 0, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return 0, s.wrap("write ledger", err)
	}
	defer tx.Rollback()
	var runs int64
	if purge {
		// A run claimed since the caller looked (Running) is refused in
		// this transaction (immediate: no claim comes in between).
		var running int64
		switch err := tx.QueryRowContext(ctx, `SELECT id FROM runs WHERE task = ? AND status = 'running' LIMIT 1`, task).Scan(&running); {
		case err == nil:
			return 0, fmt.Errorf("%w (run %d)", store.ErrRunInProgress, running)
		case !errors.Is(err, sql.ErrNoRows):
			return 0, s.wrap("write ledger", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE task = ?`, task)
		if err == nil {
			runs, err = res.RowsAffected()
		}
		if err == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM pruned_slots WHERE task = ?`, task)
		}
		if err != nil {
			return 0, s.wrap("write ledger", err)
		}
	}
	q, args := `UPDATE tasks SET retired_at = ?2, paused_at = 0, paused_until = 0 WHERE name = ?1`, []any{task, ms(at)}
	if purge {
		q, args = `DELETE FROM tasks WHERE name = ?1`, []any{task}
	}
	if err := execOne(ctx, tx, task, q, args...); err != nil {
		return 0, s.wrap("write ledger", err)
	}
	return runs, s.wrap("write ledger", tx.Commit())
}

// SetPause implements store.Lifecycle.
func (s *Ledger) SetPause(ctx context.Context, task string, from, until time.Time) error {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return err
	}
	return s.wrap("write ledger", execOne(ctx, s.db, task,
		`UPDATE tasks SET paused_at = ?2, paused_until = ?3 WHERE name = ?1`, task, ms(from), ms(until)))
}

// UnsettlePaused implements store.Lifecycle.
func (s *Ledger) UnsettlePaused(ctx context.Context, task string, from time.Time) (int64, time.Time, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return 0, time.Time{}, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return 0, time.Time{}, s.wrap("write ledger", err)
	}
	defer tx.Rollback()
	var pruned int64
	if err := tx.QueryRowContext(ctx, `SELECT pruned_through FROM tasks WHERE name = ?`, task).Scan(&pruned); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, s.wrap("read ledger", err)
	}
	var floor time.Time
	if pruned > 0 && !fromMS(pruned).Before(from) {
		floor = fromMS(pruned)
		from = floor.Add(time.Second)
	}
	res, err := tx.ExecContext(ctx, `UPDATE runs SET reason = ?3 WHERE task = ?1 AND status = 'paused' AND slot >= ?2 AND reason <> ?3`,
		task, from.Unix(), store.ReasonReplayPaused)
	if err != nil {
		return 0, time.Time{}, s.wrap("write ledger", err)
	}
	n, _ := res.RowsAffected()
	if err := execOne(ctx, tx, task, `UPDATE tasks SET settled_through = MAX(MIN(settled_through, ?2), pruned_through), paused_at = ?3, paused_until = ?3 WHERE name = ?1`,
		task, ms(from.Add(-time.Second)), ms(time.Time{})); err != nil {
		return 0, time.Time{}, s.wrap("write ledger", err)
	}
	return n, floor, s.wrap("write ledger", tx.Commit())
}

// Backdate implements store.Lifecycle.
func (s *Ledger) Backdate(ctx context.Context, task string, from time.Time) (bool, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return false, err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE tasks SET registered_at = ?2, settled_through = MAX(MIN(settled_through, ?3), pruned_through),
  schedule_since = CASE WHEN schedule_since = 0 THEN 0 ELSE MIN(schedule_since, ?3) END
WHERE name = ?1 AND registered_at > ?2`, task, ms(from), ms(from.Add(-time.Second)))
	if err != nil {
		return false, s.wrap("write ledger", err)
	}
	n, err := res.RowsAffected()
	return n > 0, s.wrap("write ledger", err)
}

// LastFire implements store.Lifecycle.
func (s *Ledger) LastFire(ctx context.Context, task string) (time.Time, error) {
	ctx = uncancelled(ctx)
	var started int64
	err := s.db.QueryRowContext(ctx, `SELECT started_at FROM runs WHERE task = ? AND trigger = 'schedule'
ORDER BY id DESC LIMIT 1`, task).Scan(&started)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	return fromMS(started), s.wrap("read ledger", err)
}

// execOne runs a statement that must change the row of task: none changed
// is an error wrapping store.ErrNotFound.
func execOne(ctx context.Context, e execer, task, q string, args ...any) error {
	res, err := e.ExecContext(ctx, q, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("task %q: %w", task, store.ErrNotFound)
	}
	return nil
}
