package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/catchup/catchup/store"
)

// ResetClock implements store.Store.
func (s *Ledger) ResetClock(ctx context.Context, req store.ClockReset) (store.ClockResetResult, error) {
	ctx = uncancelled(ctx)
	var res store.ClockResetResult
	if err := s.unmoved(); err != nil {
		return res, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return res, s.wrap("write ledger", err)
	}
	defer tx.Rollback()
	var reg, settled, since, pausedAt, pausedUntil int64
	err = tx.QueryRowContext(ctx, `SELECT registered_at, settled_through, schedule_since, paused_at, paused_until FROM tasks WHERE name = ?`,
		req.Task).Scan(&reg, &settled, &since, &pausedAt, &pausedUntil)
	if errors.Is(err, sql.ErrNoRows) {
		return res, fmt.Errorf("task %q: %w", req.Task, store.ErrNotFound)
	}
	if err != nil {
		return res, s.wrap("read ledger", err)
	}
	now := req.Now.UnixMilli()
	rows, err := tx.QueryContext(ctx, `SELECT `+runColumnsLight+` FROM runs r WHERE r.task = ? AND r.slot > ?
 AND NOT (r.status = 'expired' AND r.started_at > ?) ORDER BY r.id`, req.Task, req.Now.Unix(), now)
	if err != nil {
		return res, s.wrap("read ledger", err)
	}
	for rows.Next() {
		var n nullRun
		if err := rows.Scan(n.dest()...); err != nil {
			rows.Close()
			return res, s.wrap("read ledger", err)
		}
		res.Detached = append(res.Detached, *n.run())
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, s.wrap("read ledger", err)
	}
	if settled > now {
		res.Settled = fromMS(settled)
	}
	if reg > now {
		res.Registered = fromMS(reg)
	}
	if since > now {
		res.ScheduleSince = fromMS(since)
	}
	if pausedAt > now {
		res.PausedAt = fromMS(pausedAt)
		if pausedUntil > now {
			res.PausedUntil = fromMS(pausedUntil)
		}
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{`DELETE FROM runs WHERE task = ? AND status = 'expired' AND started_at > ?`, []any{req.Task, now}},
		{`UPDATE runs SET slot = NULL, error = CASE WHEN error = '' THEN ?3 ELSE error || '; ' || ?3 END
WHERE task = ?1 AND slot > ?2`, []any{req.Task, req.Now.Unix(), req.Note}},
		{`DELETE FROM pruned_slots WHERE task = ? AND slot > ?`, []any{req.Task, req.Now.Unix()}},
		// Not below the slots a prune took (those before now: one a prune
		// took of a slot the clock had run ahead to is dropped).
		{`UPDATE tasks SET pruned_through = MIN(pruned_through, ?2) WHERE name = ?1`, []any{req.Task, now}},
		{`UPDATE tasks SET settled_through = MAX(?3, pruned_through) WHERE name = ?1 AND settled_through > ?2`, []any{req.Task, now, ms(req.Floor)}},
		// A schedule that took effect "later than now" (changed while the
		// clock was ahead) took effect where the watermark goes back to.
		{`UPDATE tasks SET schedule_since = MAX(?3, pruned_through) WHERE name = ?1 AND schedule_since > ?2`, []any{req.Task, now, ms(req.Floor)}},
		// A boot seen "later than now" was seen until now at most.
		{`UPDATE boots SET first_seen = MIN(first_seen, ?1), last_seen = ?1 WHERE last_seen > ?1`, []any{now}},
		{`UPDATE tasks SET registered_at = COALESCE((SELECT MIN(started_at) FROM runs WHERE task = ?1 AND started_at <= ?2), ?2)
WHERE name = ?1 AND registered_at > ?2`, []any{req.Task, now}},
		// A pause that began "later than now" (paused while the clock was
		// ahead) began at the watermark, so that it covers every slot not
		// settled; an end set then too is dropped (until catchup resume).
		{`UPDATE tasks SET paused_at = MAX(settled_through, pruned_through, registered_at),
 paused_until = CASE WHEN paused_until > ?2 THEN 0 ELSE paused_until END WHERE name = ?1 AND paused_at > ?2`, []any{req.Task, now}},
	}
	for i, st := range stmts {
		r, err := tx.ExecContext(ctx, st.q, st.args...)
		if err != nil {
			return res, s.wrap("write ledger", err)
		}
		if i == 0 {
			res.DeletedExpired, _ = r.RowsAffected()
		}
	}
	if !res.PausedAt.IsZero() {
		var from int64
		if err := tx.QueryRowContext(ctx, `SELECT paused_at FROM tasks WHERE name = ?`, req.Task).Scan(&from); err != nil {
			return res, s.wrap("read ledger", err)
		}
		res.PausedFrom = fromMS(from)
	}
	if req.DryRun {
		return res, nil
	}
	return res, s.wrap("write ledger", tx.Commit())
}
