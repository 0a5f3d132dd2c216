package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5"
)

// Forget implements store.Lifecycle. A purge deletes the task's slots and
// its lock row with its runs.
func (p *Ledger) Forget(ctx context.Context, task string, at time.Time, purge bool) (int64, error) {
	tx, err := p.begin(ctx)
	if err != nil {
		return 0, p.wrap("write ledger", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var runs int64
	if purge {
		// The task's row first: a replay's claim holding it (Claim) is
		// waited for, and its run deleted with the others; one that
		// comes after finds no task and is refused.
		if err := execOne(ctx, tx, task, `DELETE FROM tasks WHERE name = $1`, task); err != nil {
			return 0, p.wrap("write ledger", err)
		}
		// A run claimed since the caller looked (Running) is refused here,
		// its claim committed before the delete above went on: deleted, its
		// job would run on with no record, its slot and lock free for
		// another host's fire.
		var running int64
		switch err := tx.QueryRow(ctx, `SELECT id FROM runs WHERE task = $1 AND status = 'running' LIMIT 1`, task).Scan(&running); {
		case err == nil:
			return 0, fmt.Errorf("%w (run %d)", store.ErrRunInProgress, running)
		case !errors.Is(err, pgx.ErrNoRows):
			return 0, p.wrap("write ledger", err)
		}
		tag, err := tx.Exec(ctx, `DELETE FROM runs WHERE task = $1`, task)
		runs = tag.RowsAffected()
		for _, q := range []string{`DELETE FROM slots WHERE task = $1`, `DELETE FROM task_locks WHERE task = $1`} {
			if err == nil {
				_, err = tx.Exec(ctx, q, task)
			}
		}
		if err != nil {
			return 0, p.wrap("write ledger", err)
		}
	}
	if !purge {
		if err := execOne(ctx, tx, task, `UPDATE tasks SET retired_at = $2, paused_at = NULL, paused_until = NULL WHERE name = $1`,
			task, dbTime(at)); err != nil {
			return 0, p.wrap("write ledger", err)
		}
	}
	return runs, p.wrap("write ledger", tx.Commit(ctx))
}

// SetPause implements store.Lifecycle.
func (p *Ledger) SetPause(ctx context.Context, task string, from, until time.Time) error {
	return p.wrap("write ledger", execOne(ctx, p.pool, task,
		`UPDATE tasks SET paused_at = $2, paused_until = $3 WHERE name = $1`, task, dbNullTime(from), dbNullTime(until)))
}

// UnsettlePaused implements store.Lifecycle. A paused run holds no slot
// (it is neither running nor succeeded): the slots table needs nothing.
func (p *Ledger) UnsettlePaused(ctx context.Context, task string, from time.Time) (int64, time.Time, error) {
	tx, err := p.begin(ctx)
	if err != nil {
		return 0, time.Time{}, p.wrap("write ledger", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var pruned *time.Time
	if err := tx.QueryRow(ctx, `SELECT pruned_through FROM tasks WHERE name = $1 FOR UPDATE`, task).Scan(&pruned); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, time.Time{}, p.wrap("read ledger", err)
	}
	var floor time.Time
	if f := fromDB(pruned); !f.IsZero() && !f.Before(from) {
		floor = f
		from = floor.Add(time.Second)
	}
	tag, err := tx.Exec(ctx, `UPDATE runs SET reason = $3 WHERE task = $1 AND status = 'paused' AND slot >= $2 AND reason <> $3`,
		task, dbTime(from), store.ReasonReplayPaused)
	if err != nil {
		return 0, time.Time{}, p.wrap("write ledger", err)
	}
	if err := execOne(ctx, tx, task, `UPDATE tasks SET settled_through = GREATEST(LEAST(settled_through, $2), pruned_through), paused_at = NULL, paused_until = NULL WHERE name = $1`,
		task, dbTime(from.Add(-time.Second))); err != nil {
		return 0, time.Time{}, p.wrap("write ledger", err)
	}
	return tag.RowsAffected(), floor, p.wrap("write ledger", tx.Commit(ctx))
}

// Backdate implements store.Lifecycle. A watermark of none (NULL) takes
// one second before from, as a new registration's.
func (p *Ledger) Backdate(ctx context.Context, task string, from time.Time) (bool, error) {
	tag, err := p.pool.Exec(ctx, `UPDATE tasks SET registered_at = $2, settled_through = GREATEST(LEAST(settled_through, $3), pruned_through),
  schedule_since = CASE WHEN schedule_since IS NULL THEN NULL ELSE LEAST(schedule_since, $3) END
WHERE name = $1 AND registered_at > $2`, task, dbTime(from), dbTime(from.Add(-time.Second)))
	if err != nil {
		return false, p.wrap("write ledger", err)
	}
	return tag.RowsAffected() > 0, nil
}

// LastFire implements store.Lifecycle.
func (p *Ledger) LastFire(ctx context.Context, task string) (time.Time, error) {
	var started time.Time
	err := p.pool.QueryRow(ctx, `SELECT started_at FROM runs WHERE task = $1 AND trigger = 'schedule'
ORDER BY id DESC LIMIT 1`, task).Scan(&started)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	return fromDB(&started), p.wrap("read ledger", err)
}

// execOne runs a statement that must change the row of task: none changed
// is an error wrapping store.ErrNotFound.
func execOne(ctx context.Context, e execer, task, q string, args ...any) error {
	tag, err := e.Exec(ctx, q, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("task %q: %w", task, store.ErrNotFound)
	}
	return nil
}

// importLifecycle carries an imported task's retirement and pause over
// (catchup migrate), unless the ledger already holds its own. A pause is
// carried when the ledger holds none, or one that had ended by the time the
// imported pause began (a pause made on the host after an earlier migrate
// carried an older one, as `catchup pause` there would replace it); a pause
// here that was live then, or is newer, is this ledger's own and stays, and
// the pause carried before, imported again, changes nothing.
func importLifecycle(ctx context.Context, e execer, t store.Task) error {
	if !t.PrunedThrough.IsZero() {
		// The host pruned runs of slots up to it: the watermark here never
		// goes below them either (UnsettlePaused, ResetClock, Backdate).
		if _, err := e.Exec(ctx, `UPDATE tasks SET pruned_through = $2
WHERE name = $1 AND (pruned_through IS NULL OR pruned_through < $2)`, t.Name, dbTime(t.PrunedThrough)); err != nil {
			return err
		}
	}
	if t.RetiredAt.IsZero() && t.PausedAt.IsZero() {
		return nil
	}
	_, err := e.Exec(ctx, `UPDATE tasks SET retired_at = COALESCE(retired_at, $2),
  paused_at = CASE WHEN `+takesPause+` THEN $3 ELSE paused_at END,
  paused_until = CASE WHEN `+takesPause+` THEN $4 ELSE paused_until END
WHERE name = $1`, t.Name, dbNullTime(t.RetiredAt), dbNullTime(t.PausedAt), dbNullTime(t.PausedUntil))
	return err
}

// takesPause is importLifecycle's rule, on the row before the update ($3:
// the imported pause's start, $4 its end).
const takesPause = `$3::timestamptz IS NOT NULL AND (paused_at IS NULL
 OR (paused_at < $3::timestamptz AND paused_until IS NOT NULL AND paused_until <= $3::timestamptz))`
