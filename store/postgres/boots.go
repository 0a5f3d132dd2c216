package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
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

// AddRuns implements store.Store. The inserts go in one batch; a slot that a
// running or succeeded record holds is then brought in step as AddRun does.
// An expired record of a slot recorded expired already, or held by a run
// (running, succeeded), is left out (id 0); so is a paused record of a slot
// recorded paused already; and either of a slot that an earlier record of
// runs records so.
func (p *Ledger) AddRuns(ctx context.Context, runs []store.Run) ([]int64, error) {
	return p.AddRunsOf(ctx, store.Of{}, runs)
}

// AddRunsOf implements store.Store: the task's row is read under the lock
// recordedAlready takes (lockTaskSQL), which holds off a purge (Forget
// deletes the task first) and a retirement until the inserts commit.
func (p *Ledger) AddRunsOf(ctx context.Context, of store.Of, runs []store.Run) ([]int64, error) {
	if len(runs) == 0 {
		return nil, nil
	}
	tx, err := p.begin(ctx)
	if err != nil {
		return nil, p.wrap("write ledger", err)
	}
	defer tx.Rollback(ctx)
	if !of.Registered.IsZero() {
		var at time.Time
		var retired *time.Time
		err := tx.QueryRow(ctx, `SELECT registered_at, retired_at FROM tasks WHERE name = $1 FOR UPDATE`, runs[0].Task).Scan(&at, &retired)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil, fmt.Errorf("task %s: %w", runs[0].Task, store.ErrGone)
		case err != nil:
			return nil, p.wrap("read ledger", err)
		}
		if err := of.Refuses(at, fromDB(retired)); err != nil {
			return nil, fmt.Errorf("task %s: %w", runs[0].Task, err)
		}
	}
	ids := make([]int64, len(runs))
	had, err := p.recordedAlready(ctx, tx, runs)
	if err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	for i, r := range runs {
		if had[i] {
			continue // recorded expired (paused) already (another scan, a prune): id 0
		}
		b.Queue(insertRunSQL+` RETURNING id`, insertArgs(0, r, "")...).QueryRow(func(row pgx.Row) error {
			return row.Scan(&ids[i])
		})
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, p.wrap("write ledger", err)
	}
	for i, r := range runs {
		if had[i] || r.Slot.IsZero() || (r.Status != store.StatusRunning && r.Status != store.StatusSucceeded) {
			continue
		}
		for _, q := range []string{lockSlotOfRunSQL, syncSlotOfRunSQL} {
			if _, err := tx.Exec(ctx, q, ids[i]); err != nil {
				return nil, p.wrap("write ledger", err)
			}
		}
	}
	return ids, p.wrap("write ledger", tx.Commit(ctx))
}

// expiredSlotSQL tells whether a slot is recorded expired already, or a
// run holds it (running or succeeded): see store.Store.AddRuns.
const expiredSlotSQL = `SELECT EXISTS (SELECT 1 FROM runs WHERE task = $1 AND slot = $2
 AND status IN ('expired', 'running', 'succeeded'))`

// pausedSlotSQL tells whether a slot is recorded paused already, by a
// record that settles it (not given back): see store.Store.AddRuns.
const pausedSlotSQL = `SELECT EXISTS (SELECT 1 FROM runs WHERE task = $1 AND slot = $2
 AND status = 'paused' AND COALESCE(reason, '') <> '` + store.ReasonReplayPaused + `')`

// onceSQL is the check that leaves r out when it holds: expiredSlotSQL for
// an expired record, pausedSlotSQL for a paused one (with a slot); "" for
// any other record, always added.
func onceSQL(r store.Run) string {
	switch {
	case r.Slot.IsZero():
		return ""
	case r.Status == store.StatusExpired:
		return expiredSlotSQL
	case r.Status == store.StatusPaused:
		return pausedSlotSQL
	}
	return ""
}

// recordedAlready tells, for each expired or paused record of runs, whether
// its slot is recorded so already (an expired one's also when a run holds
// it), in the ledger or by an earlier record of runs. It first locks the
// rows of their tasks (in name order), so that two callers recording one
// slot at once (a scan, a prune) take turns: the second sees the first's
// record.
func (p *Ledger) recordedAlready(ctx context.Context, tx pgx.Tx, runs []store.Run) ([]bool, error) {
	had := make([]bool, len(runs))
	var tasks []string
	for _, r := range runs {
		if onceSQL(r) != "" && !slices.Contains(tasks, r.Task) {
			tasks = append(tasks, r.Task)
		}
	}
	slices.Sort(tasks)
	for _, t := range tasks {
		if _, err := tx.Exec(ctx, lockTaskSQL, t); err != nil {
			return nil, p.wrap("write ledger", err)
		}
	}
	type record struct {
		task, status string
		slot         int64
	}
	seen := map[record]bool{} // the records of runs to be added
	for i, r := range runs {
		q := onceSQL(r)
		if q == "" {
			continue
		}
		k := record{r.Task, r.Status, r.Slot.Unix()}
		if had[i] = seen[k]; had[i] {
			continue
		}
		if err := tx.QueryRow(ctx, q, r.Task, dbSlot(r.Slot)).Scan(&had[i]); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		seen[k] = !had[i]
	}
	return had, nil
}

// ExpiredCounts implements store.Store.
func (p *Ledger) ExpiredCounts(ctx context.Context) (map[string]map[string]int64, error) {
	rows, err := p.pool.Query(ctx, `SELECT task, reason, count(*) FROM runs WHERE status = 'expired' GROUP BY task, reason`)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	out, err := backend.CollectCounts(rows)
	return out, p.wrap("read ledger", err)
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
