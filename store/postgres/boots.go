package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5"
)

// seeBoot records a sighting of a boot (see Store.SeeBoot) inside the
// caller's transaction.
func seeBoot(ctx context.Context, e execer, b store.Boot) error {
	var id int64
	var bt *time.Time
	err := e.QueryRow(ctx, `SELECT id, boot_time FROM boots WHERE host = $1 AND boot_id = $2 ORDER BY id DESC LIMIT 1`,
		dbText(b.Host), dbText(b.ID)).Scan(&id, &bt)
	switch {
	case err == nil && (store.Boot{ID: b.ID, Time: fromDB(bt)}).SameSpan(b.ID, b.Time):
		_, err = e.Exec(ctx, `UPDATE boots SET first_seen = LEAST(first_seen, $2), last_seen = GREATEST(last_seen, $2),
 boot_time = COALESCE(boot_time, $3) WHERE id = $1`, id, dbTime(b.LastSeen), dbNullTime(b.Time))
		return err
	case err != nil && !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	_, err = e.Exec(ctx, `INSERT INTO boots (host, boot_id, boot_time, first_seen, last_seen) VALUES ($1, $2, $3, $4, $4)`,
		dbText(b.Host), dbText(b.ID), dbNullTime(b.Time), dbTime(b.LastSeen))
	return err
}

// SeeBoot implements store.Store.
func (p *Ledger) SeeBoot(ctx context.Context, b store.Boot) error {
	tx, err := p.begin(ctx)
	if err != nil {
		return p.wrap("write ledger", err)
	}
	defer tx.Rollback(ctx)
	if err := seeBoot(ctx, tx, b); err != nil {
		return p.wrap("write ledger", err)
	}
	return p.wrap("write ledger", tx.Commit(ctx))
}

// Boots implements store.Store.
func (p *Ledger) Boots(ctx context.Context, host string) ([]store.Boot, error) {
	rows, err := p.pool.Query(ctx, `SELECT host, boot_id, boot_time, first_seen, last_seen FROM boots
WHERE host = $1 ORDER BY id`, dbText(host))
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []store.Boot
	for rows.Next() {
		b, err := scanBoot(rows)
		if err != nil {
			return nil, p.wrap("read ledger", err)
		}
		out = append(out, b)
	}
	return out, p.wrap("read ledger", rows.Err())
}

// scanBoot reads a boot span's row: host, boot_id, boot_time, first_seen,
// last_seen.
func scanBoot(rows pgx.Rows) (store.Boot, error) {
	var b store.Boot
	var bt *time.Time
	var first, last time.Time
	if err := rows.Scan(&b.Host, &b.ID, &bt, &first, &last); err != nil {
		return b, err
	}
	b.Host, b.ID = fromText(b.Host), fromText(b.ID)
	b.Time, b.FirstSeen, b.LastSeen = fromDB(bt), fromDB(&first), fromDB(&last)
	return b, nil
}

// ResetClock implements store.Store. The task row is locked first, as Interrupt
// and SetSettled do.
func (p *Ledger) ResetClock(ctx context.Context, req store.ClockReset) (store.ClockResetResult, error) {
	var res store.ClockResetResult
	tx, err := p.begin(ctx)
	if err != nil {
		return res, p.wrap("write ledger", err)
	}
	defer tx.Rollback(ctx)
	var reg time.Time
	var settled, since, pausedAt, pausedUntil *time.Time
	err = tx.QueryRow(ctx, `SELECT registered_at, settled_through, schedule_since, paused_at, paused_until FROM tasks WHERE name = $1 FOR UPDATE`,
		req.Task).Scan(&reg, &settled, &since, &pausedAt, &pausedUntil)
	if errors.Is(err, pgx.ErrNoRows) {
		return res, fmt.Errorf("task %q: %w", req.Task, store.ErrNotFound)
	}
	if err != nil {
		return res, p.wrap("read ledger", err)
	}
	now := dbTime(req.Now)
	if s := fromDB(settled); s.After(now) {
		res.Settled = s
	}
	if r := fromDB(&reg); r.After(now) {
		res.Registered = r
	}
	if s := fromDB(since); s.After(now) {
		res.ScheduleSince = s
	}
	if a := fromDB(pausedAt); a.After(now) {
		res.PausedAt = a
		if u := fromDB(pausedUntil); u.After(now) {
			res.PausedUntil = u
		}
	}
	if res.Detached, err = p.queryRuns(ctx, tx, `SELECT `+runColumnsLight+` FROM runs r WHERE r.task = $1 AND r.slot > $2
 AND NOT (r.status = 'expired' AND r.started_at > $3) ORDER BY r.id`, req.Task, dbSlot(req.Now), now); err != nil {
		return res, err
	}
	tag, err := tx.Exec(ctx, `DELETE FROM runs WHERE task = $1 AND status = 'expired' AND started_at > $2`, req.Task, now)
	if err != nil {
		return res, p.wrap("write ledger", err)
	}
	res.DeletedExpired = tag.RowsAffected()
	for _, st := range []struct {
		q    string
		args []any
	}{
		{`UPDATE runs SET slot = NULL, error = CASE WHEN error = '' THEN $3 ELSE error || '; ' || $3 END
WHERE task = $1 AND slot > $2`, []any{req.Task, dbSlot(req.Now), dbText(req.Note)}},
		{`DELETE FROM slots WHERE task = $1 AND slot > $2`, []any{req.Task, dbSlot(req.Now)}},
		// Not below the slots a prune took (those before now: one a prune
		// took of a slot the clock had run ahead to is dropped).
		{`UPDATE tasks SET pruned_through = $2 WHERE name = $1 AND pruned_through > $2`, []any{req.Task, now}},
		{`UPDATE tasks SET settled_through = GREATEST($3, pruned_through) WHERE name = $1 AND settled_through > $2`, []any{req.Task, now, dbNullTime(req.Floor)}},
		// A schedule that took effect "later than now" (changed while the
		// clock was ahead) took effect where the watermark goes back to.
		{`UPDATE tasks SET schedule_since = GREATEST($3, pruned_through) WHERE name = $1 AND schedule_since > $2`, []any{req.Task, now, dbNullTime(req.Floor)}},
		// A boot seen "later than now" was seen until now at most.
		{`UPDATE boots SET first_seen = LEAST(first_seen, $1), last_seen = $1 WHERE last_seen > $1`, []any{now}},
		{`UPDATE tasks SET registered_at = COALESCE((SELECT MIN(started_at) FROM runs WHERE task = $1 AND started_at <= $2), $2)
WHERE name = $1 AND registered_at > $2`, []any{req.Task, now}},
		// A pause that began "later than now" (paused while the clock was
		// ahead) began at the watermark, so that it covers every slot not
		// settled; an end set then too is dropped (until catchup resume).
		{`UPDATE tasks SET paused_at = GREATEST(settled_through, pruned_through, registered_at),
 paused_until = CASE WHEN paused_until > $2 THEN NULL ELSE paused_until END WHERE name = $1 AND paused_at > $2`, []any{req.Task, now}},
	} {
		if _, err := tx.Exec(ctx, st.q, st.args...); err != nil {
			return res, p.wrap("write ledger", err)
		}
	}
	if !res.PausedAt.IsZero() {
		var from *time.Time
		if err := tx.QueryRow(ctx, `SELECT paused_at FROM tasks WHERE name = $1`, req.Task).Scan(&from); err != nil {
			return res, p.wrap("read ledger", err)
		}
		res.PausedFrom = fromDB(from)
	}
	if req.DryRun {
		return res, nil
	}
	return res, p.wrap("write ledger", tx.Commit(ctx))
}

// ImportBoots copies boot spans from another ledger (catchup migrate): a
// span already here (same host, boot, boot time and first sighting) is
// widened to the imported one's last sighting, not copied twice.
func (p *Ledger) ImportBoots(ctx context.Context, boots []store.Boot) error {
	b := &pgx.Batch{}
	for _, bt := range boots {
		b.Queue(`WITH up AS (
  UPDATE boots SET last_seen = GREATEST(last_seen, $5)
  WHERE host = $1 AND boot_id = $2 AND boot_time IS NOT DISTINCT FROM $3 AND first_seen = $4 RETURNING 1)
INSERT INTO boots (host, boot_id, boot_time, first_seen, last_seen) SELECT $1, $2, $3, $4, $5
WHERE NOT EXISTS (SELECT 1 FROM up)`, dbText(bt.Host), dbText(bt.ID), dbNullTime(bt.Time), dbTime(bt.FirstSeen), dbTime(bt.LastSeen))
	}
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return p.wrap("write ledger", err)
	}
	return nil
}
