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

// execer is what *sql.DB and *sql.Tx share.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// upsertTaskSQL inserts a task or updates its definition (see upsertTask).
const upsertTaskSQL = `
INSERT INTO tasks (name, schedule, tz, replay, argv, dir, shell, source, retries, retry_delay_ms, registered_at, updated_at,
 timeout_ms, kill_after_ms, no_capture, notify_cmd, settled_through, on_busy, max_age_ms, schedule_since)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET
  schedule = excluded.schedule, tz = excluded.tz, replay = excluded.replay,
  argv = excluded.argv, dir = excluded.dir, shell = excluded.shell, source = excluded.source,
  retries = excluded.retries, retry_delay_ms = excluded.retry_delay_ms,
  registered_at = CASE WHEN tasks.retired_at <> 0 THEN excluded.registered_at
    ELSE MIN(tasks.registered_at, excluded.registered_at) END,
  updated_at = excluded.updated_at,
  timeout_ms = excluded.timeout_ms, kill_after_ms = excluded.kill_after_ms,
  no_capture = excluded.no_capture, notify_cmd = excluded.notify_cmd, on_busy = excluded.on_busy, max_age_ms = excluded.max_age_ms,
  retired_at = 0,
  settled_through = CASE WHEN tasks.retired_at <> 0 THEN excluded.settled_through
    WHEN tasks.schedule <> excluded.schedule OR tasks.tz <> excluded.tz
    THEN MIN(excluded.settled_through, COALESCE((SELECT MIN(f.slot) * 1000 - 1000 FROM runs f
      WHERE f.task = excluded.name AND f.status IN ('failed', 'timeout')
        AND f.slot * 1000 > tasks.settled_through AND f.slot * 1000 <= excluded.settled_through
        AND NOT EXISTS (SELECT 1 FROM runs s WHERE s.task = f.task AND s.slot = f.slot AND s.status = 'succeeded')),
      excluded.settled_through))
    ELSE tasks.settled_through END,
  schedule_since = CASE WHEN tasks.retired_at <> 0 THEN 0
    WHEN tasks.schedule <> excluded.schedule OR tasks.tz <> excluded.tz THEN excluded.settled_through
    ELSE tasks.schedule_since END
WHERE excluded.source NOT LIKE 'run%' OR tasks.source NOT LIKE 'crontab:%' OR tasks.retired_at <> 0`

// upsertTask inserts or updates a task. A task discovered in a crontab keeps
// its registration when a fire of its line registers again with --cron: the
// crontab line is the single source of truth. The watermark follows the
// schedule: kept while the schedule and zone stay, replaced when they change,
// and then the change's watermark is when the schedule took effect
// (store.Task.ScheduleSince), or just below the first slot since the old
// watermark whose run failed or timed out and that no run succeeded, if
// earlier: the watermark never passes a recent failed slot, which scan
// --retry-failed replays if the new schedule has it (guarantees S8).
func upsertTask(ctx context.Context, e execer, t store.Task) error {
	argv, err := backend.EncodeArgv(t.Argv)
	if err != nil {
		return err
	}
	_, err = e.ExecContext(ctx, upsertTaskSQL, t.Name, t.Schedule, t.TZ, backend.ReplayPolicy(t.Replay), argv, t.Dir,
		t.Shell, t.Source, t.Retries, t.RetryDelay.Milliseconds(), ms(t.RegisteredAt), ms(t.UpdatedAt),
		t.Timeout.Milliseconds(), t.KillAfter.Milliseconds(), t.NoCapture, t.NotifyCmd, ms(t.SettledThrough), t.OnBusy,
		t.MaxAge.Milliseconds(), ms(t.ScheduleSince))
	return err
}

// UpsertTask implements store.Store.
func (s *Ledger) UpsertTask(ctx context.Context, t store.Task) error {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return err
	}
	return s.wrap("write ledger", s.write(ctx, func(ctx context.Context, e readWriter) error { return upsertTask(ctx, e, t) }))
}

const taskColumns = `t.name, t.schedule, t.tz, t.replay, t.argv, t.dir, t.shell, t.source, t.retries, t.retry_delay_ms,
 t.registered_at, t.updated_at, t.timeout_ms, t.kill_after_ms, t.no_capture, t.notify_cmd, t.settled_through, t.on_busy,
 t.max_age_ms, t.retired_at, t.paused_at, t.paused_until, t.pruned_through, t.schedule_since`

func scanTask(sc interface{ Scan(...any) error }, extra ...any) (store.Task, error) {
	var t store.Task
	var argv string
	var delay, reg, upd, timeout, kill, settled, maxAge, retired, paused, until, pruned, since int64
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
	t.RetryDelay = time.Duration(delay) * time.Millisecond
	t.Timeout, t.KillAfter = time.Duration(timeout)*time.Millisecond, time.Duration(kill)*time.Millisecond
	t.RegisteredAt, t.UpdatedAt, t.SettledThrough = fromMS(reg), fromMS(upd), fromMS(settled)
	t.MaxAge = time.Duration(maxAge) * time.Millisecond
	t.RetiredAt, t.PausedAt, t.PausedUntil = fromMS(retired), fromMS(paused), fromMS(until)
	t.PrunedThrough, t.ScheduleSince = fromMS(pruned), fromMS(since)
	return t, nil
}

// taskByNameSQL reads one task.
const taskByNameSQL = `SELECT ` + taskColumns + ` FROM tasks t WHERE t.name = ?`

// Task implements store.Store.
func (s *Ledger) Task(ctx context.Context, name string) (store.Task, error) {
	ctx = uncancelled(ctx)
	// Prepared once asked twice: a scan reads a task again before each
	// replay of its backlog (its pause), 13% of a 3,000-slot replay's CPU
	// when parsed at every read.
	var row *sql.Row
	if st, ok := s.prepared.get(ctx, s.db, taskByNameSQL); ok {
		row = st.QueryRowContext(ctx, name)
	} else {
		row = s.db.QueryRowContext(ctx, taskByNameSQL, name)
	}
	t, err := scanTask(row)
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("task %q: %w", name, store.ErrNotFound)
	}
	return t, s.wrap("read ledger", err)
}

// Tasks implements store.Store. The latest run of each task is found through the
// (task, id) index, walked back past any duplicate's records and any record
// of an older slot (backend.NotAnOlderSlotSQL): the cost grows with the
// number of tasks, not of runs.
func (s *Ledger) Tasks(ctx context.Context) ([]store.TaskSummary, error) {
	ctx = uncancelled(ctx)
	rows, err := s.db.QueryContext(ctx, `SELECT `+taskColumns+`, `+runColumnsLight+`
FROM tasks t LEFT JOIN runs r ON r.id = (SELECT id FROM runs WHERE task = t.name AND `+backend.NotADuplicateSQL+`
 AND `+backend.NotAnOlderSlotSQL("t.name", backend.NotADuplicateSQL)+` ORDER BY id DESC LIMIT 1)
ORDER BY t.name`)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []store.TaskSummary
	for rows.Next() {
		var nr nullRun
		t, err := scanTask(rows, nr.dest()...)
		if err != nil {
			return nil, s.wrap("read ledger", err)
		}
		out = append(out, store.TaskSummary{Task: t, Latest: nr.run()})
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read ledger", err)
	}
	rows.Close()
	return out, backend.ShowLatest(out, func(task string) (*store.Run, error) { return s.latestOf(ctx, latestShownSQL(), task) })
}

// ms is a time as stored in a NOT NULL column: Unix milliseconds, 0 for none.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMS reads a stored time back, in UTC; 0 is the zero time.
func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// UpsertTaskOf implements store.Store: the task's registration and
// retirement are read in the write's immediate transaction (no forget
// commits between the read and the upsert).
func (s *Ledger) UpsertTaskOf(ctx context.Context, of store.Of, t store.Task) error {
	if of.Registered.IsZero() {
		return s.UpsertTask(ctx, t)
	}
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return s.wrap("write ledger", err)
	}
	defer tx.Rollback()
	var at, retired int64
	err = tx.QueryRowContext(ctx, `SELECT registered_at, retired_at FROM tasks WHERE name = ?`, t.Name).Scan(&at, &retired)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("task %s: %w", t.Name, store.ErrGone)
	case err != nil:
		return s.wrap("read ledger", err)
	}
	if err := of.Refuses(fromMS(at), fromMS(retired)); err != nil {
		return fmt.Errorf("task %s: %w", t.Name, err)
	}
	if err := upsertTask(ctx, tx, t); err != nil {
		return s.wrap("write ledger", err)
	}
	return s.wrap("write ledger", tx.Commit())
}
