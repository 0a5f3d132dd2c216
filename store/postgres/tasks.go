package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
	"github.com/jackc/pgx/v5"
)

// upsertTaskSQL inserts a task or updates its definition; an extra
// condition for replacing an existing one may follow it. The registration only moves
// back. A task discovered in a crontab keeps its definition when a fire of
// its line registers again with --cron: the crontab line is the single
// source of truth. The watermark follows the schedule: kept while the
// schedule and zone stay, replaced when they change, but never past a
// slot since the old watermark whose run failed or timed out and that no
// run succeeded (scan --retry-failed replays it if the new schedule has
// it: guarantees S8).
const upsertTaskSQL = `
INSERT INTO tasks (name, schedule, tz, replay, argv, dir, shell, source, retries, retry_delay_ms, registered_at, updated_at,
 timeout_ms, kill_after_ms, no_capture, notify_cmd, settled_through, on_busy, max_age_ms, schedule_since)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
ON CONFLICT (name) DO UPDATE SET
  schedule = excluded.schedule, tz = excluded.tz, replay = excluded.replay,
  argv = excluded.argv, dir = excluded.dir, shell = excluded.shell, source = excluded.source,
  retries = excluded.retries, retry_delay_ms = excluded.retry_delay_ms,
  registered_at = CASE WHEN tasks.retired_at IS NOT NULL THEN excluded.registered_at
    ELSE LEAST(tasks.registered_at, excluded.registered_at) END,
  updated_at = excluded.updated_at,
  timeout_ms = excluded.timeout_ms, kill_after_ms = excluded.kill_after_ms,
  no_capture = excluded.no_capture, notify_cmd = excluded.notify_cmd, on_busy = excluded.on_busy, max_age_ms = excluded.max_age_ms,
  retired_at = NULL,
  settled_through = CASE WHEN tasks.retired_at IS NOT NULL THEN excluded.settled_through
    WHEN tasks.schedule <> excluded.schedule OR tasks.tz <> excluded.tz
    THEN LEAST(excluded.settled_through, (SELECT MIN(f.slot) - interval '1 second' FROM runs f
      WHERE f.task = excluded.name AND f.status IN ('failed', 'timeout')
        AND (tasks.settled_through IS NULL OR f.slot > tasks.settled_through) AND f.slot <= excluded.settled_through
        AND NOT EXISTS (SELECT 1 FROM runs s WHERE s.task = f.task AND s.slot = f.slot AND s.status = 'succeeded')))
    ELSE tasks.settled_through END,
  schedule_since = CASE WHEN tasks.retired_at IS NOT NULL THEN NULL
    WHEN tasks.schedule <> excluded.schedule OR tasks.tz <> excluded.tz THEN excluded.settled_through
    ELSE tasks.schedule_since END
WHERE (excluded.source NOT LIKE 'run%' OR tasks.source NOT LIKE 'crontab:%' OR tasks.retired_at IS NOT NULL)`

// The statements are constants, built by the compiler: no process pays for
// them at its start (docs/performance.md).
const (
	upsertTaskAlways = upsertTaskSQL
	// An imported definition replaces only an older one.
	upsertTaskIfNewer = upsertTaskSQL + " AND excluded.updated_at > tasks.updated_at"
)

// upsertTask inserts or updates t (see upsertTaskSQL). With ifNewer (an
// import), an existing task keeps a definition updated later than t's, but
// its registration still moves back to t's when t's is earlier.
func upsertTask(ctx context.Context, e execer, t store.Task, ifNewer bool) error {
	argv, err := backend.EncodeArgv(t.Argv)
	if err != nil {
		return err
	}
	q := upsertTaskAlways
	if ifNewer {
		q = upsertTaskIfNewer
	}
	_, err = e.Exec(ctx, q, upsertTaskArgs(t, argv)...)
	if err == nil && ifNewer {
		_, err = e.Exec(ctx, `UPDATE tasks SET registered_at = $2 WHERE name = $1 AND registered_at > $2`,
			t.Name, dbTime(t.RegisteredAt))
	}
	return err
}

// upsertTaskArgs are upsertTaskSQL's arguments for t, whose argv is
// encoded.
func upsertTaskArgs(t store.Task, argv string) []any {
	return []any{t.Name, t.Schedule, t.TZ, backend.ReplayPolicy(t.Replay), argv, dbText(t.Dir), dbText(t.Shell), dbText(t.Source),
		t.Retries, t.RetryDelay.Milliseconds(), dbTime(t.RegisteredAt), dbTime(t.UpdatedAt),
		t.Timeout.Milliseconds(), t.KillAfter.Milliseconds(), t.NoCapture, dbText(t.NotifyCmd), dbNullTime(t.SettledThrough), t.OnBusy,
		t.MaxAge.Milliseconds(), dbNullTime(t.ScheduleSince)}
}

// UpsertTask implements store.Store: in a transaction of its own, so that
// another session's lock of the task's row holds it up at most lockWait.
func (p *Ledger) UpsertTask(ctx context.Context, t store.Task) error {
	tx, err := p.begin(ctx)
	if err != nil {
		return p.wrap("write ledger", err)
	}
	defer tx.Rollback(ctx)
	if err := upsertTask(ctx, tx, t, false); err != nil {
		return p.wrap("write ledger", err)
	}
	return p.wrap("write ledger", tx.Commit(ctx))
}

const taskColumns = `t.name, t.schedule, t.tz, t.replay, t.argv, t.dir, t.shell, t.source, t.retries, t.retry_delay_ms,
 t.registered_at, t.updated_at, t.timeout_ms, t.kill_after_ms, t.no_capture, t.notify_cmd, t.settled_through, t.on_busy,
 t.max_age_ms, t.retired_at, t.paused_at, t.paused_until, t.pruned_through, t.schedule_since`

func scanTask(sc interface{ Scan(...any) error }, extra ...any) (store.Task, error) {
	var t store.Task
	var argv string
	var delay, timeout, kill, maxAge int64
	var reg, upd time.Time
	var settled, retired, paused, until, pruned, since *time.Time
	dest := append([]any{&t.Name, &t.Schedule, &t.TZ, &t.Replay, &argv, &t.Dir, &t.Shell, &t.Source,
		&t.Retries, &delay, &reg, &upd, &timeout, &kill, &t.NoCapture, &t.NotifyCmd, &settled, &t.OnBusy, &maxAge,
		&retired, &paused, &until, &pruned, &since}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return t, err
	}
	var err error
	if t.Argv, err = backend.DecodeArgv(t.Name, argv); err != nil {
		return t, err
	}
	t.Dir, t.Shell, t.Source, t.NotifyCmd = fromText(t.Dir), fromText(t.Shell), fromText(t.Source), fromText(t.NotifyCmd)
	t.RetryDelay = time.Duration(delay) * time.Millisecond
	t.Timeout, t.KillAfter = time.Duration(timeout)*time.Millisecond, time.Duration(kill)*time.Millisecond
	t.RegisteredAt, t.UpdatedAt, t.SettledThrough = fromDB(&reg), fromDB(&upd), fromDB(settled)
	t.MaxAge = time.Duration(maxAge) * time.Millisecond
	t.RetiredAt, t.PausedAt, t.PausedUntil = fromDB(retired), fromDB(paused), fromDB(until)
	t.PrunedThrough, t.ScheduleSince = fromDB(pruned), fromDB(since)
	return t, nil
}

// Task implements store.Store.
func (p *Ledger) Task(ctx context.Context, name string) (store.Task, error) {
	row := p.pool.QueryRow(ctx, `SELECT `+taskColumns+` FROM tasks t WHERE t.name = $1`, name)
	t, err := scanTask(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("task %q: %w", name, store.ErrNotFound)
	}
	return t, p.wrap("read ledger", err)
}

// tasksSQL finds each task's latest run through the (task, id) index,
// walked back past any duplicate's records, and any record of an older
// slot (backend.NotAnOlderSlotSQL).
var tasksSQL = sync.OnceValue(func() string {
	return `SELECT ` + taskColumns + `, ` + runColumnsLight + `
FROM tasks t LEFT JOIN LATERAL (SELECT * FROM runs WHERE task = t.name AND ` + backend.NotADuplicateSQL + `
 AND ` + notAnOlderSQL("t.name", backend.NotADuplicateSQL) + ` ORDER BY id DESC LIMIT 1) r ON true
ORDER BY t.name`
})

// Tasks implements store.Store.
func (p *Ledger) Tasks(ctx context.Context) ([]store.TaskSummary, error) {
	rows, err := p.pool.Query(ctx, tasksSQL())
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []store.TaskSummary
	for rows.Next() {
		var n runRow
		t, err := scanTask(rows, n.dest()...)
		if err != nil {
			return nil, p.wrap("read ledger", err)
		}
		out = append(out, store.TaskSummary{Task: t, Latest: n.run()})
	}
	if err := rows.Err(); err != nil {
		return nil, p.wrap("read ledger", err)
	}
	rows.Close()
	return out, backend.ShowLatest(out, func(task string) (*store.Run, error) { return p.latestOf(ctx, latestShownSQL(), task) })
}

// UpsertTaskOf implements store.Store: the task's row is read locked (FOR
// UPDATE), which holds off a forget (retirement or purge) until the
// upsert commits.
func (p *Ledger) UpsertTaskOf(ctx context.Context, of store.Of, t store.Task) error {
	if of.Registered.IsZero() {
		return p.UpsertTask(ctx, t)
	}
	tx, err := p.begin(ctx)
	if err != nil {
		return p.wrap("write ledger", err)
	}
	defer tx.Rollback(ctx)
	var at time.Time
	var retired *time.Time
	err = tx.QueryRow(ctx, `SELECT registered_at, retired_at FROM tasks WHERE name = $1 FOR UPDATE`, t.Name).Scan(&at, &retired)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("task %s: %w", t.Name, store.ErrGone)
	case err != nil:
		return p.wrap("read ledger", err)
	}
	if err := of.Refuses(at, fromDB(retired)); err != nil {
		return fmt.Errorf("task %s: %w", t.Name, err)
	}
	if err := upsertTask(ctx, tx, t, false); err != nil {
		return p.wrap("write ledger", err)
	}
	return p.wrap("write ledger", tx.Commit(ctx))
}
