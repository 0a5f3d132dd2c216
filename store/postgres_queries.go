package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgUpsertTaskSQL is upsertTaskSQL for PostgreSQL; %s is an extra condition
// for replacing an existing definition.
const pgUpsertTaskSQL = `
INSERT INTO tasks (name, schedule, tz, replay, argv, dir, shell, source, retries, retry_delay_ms, registered_at, updated_at,
 timeout_ms, kill_after_ms, no_capture, notify_cmd, settled_through)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
ON CONFLICT (name) DO UPDATE SET
  schedule = excluded.schedule, tz = excluded.tz, replay = excluded.replay,
  argv = excluded.argv, dir = excluded.dir, shell = excluded.shell, source = excluded.source,
  retries = excluded.retries, retry_delay_ms = excluded.retry_delay_ms,
  registered_at = LEAST(tasks.registered_at, excluded.registered_at),
  updated_at = excluded.updated_at,
  timeout_ms = excluded.timeout_ms, kill_after_ms = excluded.kill_after_ms,
  no_capture = excluded.no_capture, notify_cmd = excluded.notify_cmd,
  settled_through = CASE WHEN tasks.schedule <> excluded.schedule OR tasks.tz <> excluded.tz
    THEN excluded.settled_through ELSE tasks.settled_through END
WHERE (excluded.source NOT LIKE 'run%%' OR tasks.source NOT LIKE 'crontab:%%')%s`

var (
	pgUpsertTaskAlways = fmt.Sprintf(pgUpsertTaskSQL, "")
	// An imported definition replaces only an older one.
	pgUpsertTaskIfNewer = fmt.Sprintf(pgUpsertTaskSQL, " AND excluded.updated_at > tasks.updated_at")
)

// pgUpsertTask is upsertTask for PostgreSQL. With ifNewer (an import), an
// existing task keeps a definition updated later than t's, but its
// registration still moves back to t's when t's is earlier. The watermark
// follows the schedule as in upsertTask.
func pgUpsertTask(ctx context.Context, e pgExecer, t Task, ifNewer bool) error {
	argv, err := json.Marshal(t.Argv)
	if err != nil {
		return err
	}
	if t.Argv == nil {
		argv = []byte("[]")
	}
	if t.Replay == "" {
		t.Replay = "all"
	}
	q := pgUpsertTaskAlways
	if ifNewer {
		q = pgUpsertTaskIfNewer
	}
	_, err = e.Exec(ctx, q, t.Name, t.Schedule, t.TZ, t.Replay, string(argv), t.Dir, t.Shell, t.Source,
		t.Retries, t.RetryDelay.Milliseconds(), pgTime(t.RegisteredAt), pgTime(t.UpdatedAt),
		t.Timeout.Milliseconds(), t.KillAfter.Milliseconds(), t.NoCapture, t.NotifyCmd, pgNullTime(t.SettledThrough))
	if err == nil && ifNewer {
		_, err = e.Exec(ctx, `UPDATE tasks SET registered_at = $2 WHERE name = $1 AND registered_at > $2`,
			t.Name, pgTime(t.RegisteredAt))
	}
	return err
}

// UpsertTask implements Store.
func (p *Postgres) UpsertTask(ctx context.Context, t Task) error {
	return p.wrap("write ledger", pgUpsertTask(ctx, p.pool, t, false))
}

func pgScanTask(sc interface{ Scan(...any) error }, extra ...any) (Task, error) {
	var t Task
	var argv string
	var delay, timeout, kill int64
	var reg, upd time.Time
	var settled *time.Time
	dest := append([]any{&t.Name, &t.Schedule, &t.TZ, &t.Replay, &argv, &t.Dir, &t.Shell, &t.Source,
		&t.Retries, &delay, &reg, &upd, &timeout, &kill, &t.NoCapture, &t.NotifyCmd, &settled}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return t, err
	}
	if err := json.Unmarshal([]byte(argv), &t.Argv); err != nil {
		return t, fmt.Errorf("task %s: bad argv in ledger: %w", t.Name, err)
	}
	t.RetryDelay = time.Duration(delay) * time.Millisecond
	t.Timeout, t.KillAfter = time.Duration(timeout)*time.Millisecond, time.Duration(kill)*time.Millisecond
	t.RegisteredAt, t.UpdatedAt, t.SettledThrough = fromPG(&reg), fromPG(&upd), fromPG(settled)
	return t, nil
}

// Task implements Store.
func (p *Postgres) Task(ctx context.Context, name string) (Task, error) {
	row := p.pool.QueryRow(ctx, `SELECT `+taskColumns+` FROM tasks t WHERE t.name = $1`, name)
	t, err := pgScanTask(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("task %q: %w", name, ErrNotFound)
	}
	return t, p.wrap("read ledger", err)
}

// pgTasksSQL finds each task's latest run through the (task, id) index.
const pgTasksSQL = `SELECT ` + taskColumns + `, ` + pgRunColumnsLight + `
FROM tasks t LEFT JOIN LATERAL (SELECT * FROM runs WHERE task = t.name ORDER BY id DESC LIMIT 1) r ON true
ORDER BY t.name`

// Tasks implements Store.
func (p *Postgres) Tasks(ctx context.Context) ([]TaskSummary, error) {
	rows, err := p.pool.Query(ctx, pgTasksSQL)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []TaskSummary
	for rows.Next() {
		var n pgRun
		t, err := pgScanTask(rows, n.dest()...)
		if err != nil {
			return nil, p.wrap("read ledger", err)
		}
		out = append(out, TaskSummary{Task: t, Latest: n.run()})
	}
	return out, p.wrap("read ledger", rows.Err())
}

// History implements Store.
func (p *Postgres) History(ctx context.Context, f HistoryFilter) ([]Run, error) {
	if f.Limit <= 0 {
		f.Limit = 20
	}
	q := `SELECT ` + pgRunColumnsLight + ` FROM runs r WHERE true`
	var args []any
	if f.Task != "" {
		args = append(args, f.Task)
		q += fmt.Sprintf(` AND r.task = $%d`, len(args))
	}
	if f.Status != "" {
		args = append(args, f.Status)
		q += fmt.Sprintf(` AND r.status = $%d`, len(args))
	}
	args = append(args, f.Limit)
	q += fmt.Sprintf(` ORDER BY r.id DESC LIMIT $%d`, len(args))
	return p.queryRuns(ctx, p.pool, q, args...)
}

const pgRunningSQL = `SELECT ` + pgRunColumnsLight + ` FROM runs r WHERE r.status = 'running' ORDER BY r.id`

// Running implements Store. Each run carries its last heartbeat.
func (p *Postgres) Running(ctx context.Context) ([]Run, error) {
	return p.queryRuns(ctx, p.pool, pgRunningSQL)
}

const (
	pgSlotRunsSQL = `SELECT ` + pgRunColumnsLight + ` FROM runs r
WHERE r.task = $1 AND r.slot BETWEEN $2 AND $3 ORDER BY r.slot, r.id`
	pgSlotlessRunsSQL = `SELECT ` + pgRunColumnsLight + ` FROM runs r
WHERE r.task = $1 AND r.slot IS NULL AND r.started_at BETWEEN $2 AND $3 ORDER BY r.started_at, r.id`
)

// SlotRuns implements Store. Both halves are index range scans, sent in one
// round trip.
func (p *Postgres) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]Run, error) {
	var out []Run
	scan := func(rows pgx.Rows) error {
		for rows.Next() {
			var n pgRun
			if err := rows.Scan(n.dest()...); err != nil {
				return err
			}
			out = append(out, *n.run())
		}
		return rows.Err()
	}
	b := &pgx.Batch{}
	// Slots are whole seconds: the bounds round inwards, as in SQLite.
	sec := func(t time.Time) time.Time { return time.Unix(t.Unix(), 0).UTC() }
	milli := func(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }
	b.Queue(pgSlotRunsSQL, task, time.Unix(ceilSecond(from), 0).UTC(), sec(to)).Query(scan)
	b.Queue(pgSlotlessRunsSQL, task, milli(from), milli(to.Add(grace))).Query(scan)
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, p.wrap("read ledger", err)
	}
	return out, nil
}

// LatestSlot implements Store.
func (p *Postgres) LatestSlot(ctx context.Context, task string) (time.Time, error) {
	var v *time.Time
	if err := p.pool.QueryRow(ctx, `SELECT MAX(slot) FROM runs WHERE task = $1`, task).Scan(&v); err != nil {
		return time.Time{}, p.wrap("read ledger", err)
	}
	return fromPG(v), nil
}

// EarliestRun implements Store.
func (p *Postgres) EarliestRun(ctx context.Context, task string) (time.Time, error) {
	var v time.Time
	// Ids grow with time: the first run by id is the earliest, found through
	// the (task, id) index without reading the task's history.
	err := p.pool.QueryRow(ctx, `SELECT started_at FROM runs WHERE task = $1 ORDER BY id LIMIT 1`, task).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, p.wrap("read ledger", err)
	}
	return fromPG(&v), nil
}
