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

// History implements store.Store.
func (p *Ledger) History(ctx context.Context, f store.HistoryFilter) ([]store.Run, error) {
	if f.Limit <= 0 {
		f.Limit = 20
	}
	q := `SELECT ` + runColumnsLight + ` FROM runs r WHERE true`
	var args []any
	if f.Task != "" {
		args = append(args, f.Task)
		q += fmt.Sprintf(` AND r.task = $%d`, len(args))
	}
	if f.Status != "" {
		args = append(args, f.Status)
		q += fmt.Sprintf(` AND r.status = $%d`, len(args))
	}
	if !f.Since.IsZero() {
		args = append(args, time.UnixMilli(f.Since.UnixMilli()).UTC())
		q += fmt.Sprintf(` AND r.started_at >= $%d`, len(args))
	}
	args = append(args, f.Limit)
	q += fmt.Sprintf(` ORDER BY r.id DESC LIMIT $%d`, len(args))
	return p.queryRuns(ctx, p.pool, q, args...)
}

const runningSQL = `SELECT ` + runColumnsLight + ` FROM runs r WHERE r.status = 'running' ORDER BY r.id`

// Running implements store.Store. Each run carries its last heartbeat.
func (p *Ledger) Running(ctx context.Context) ([]store.Run, error) {
	return p.queryRuns(ctx, p.pool, runningSQL)
}

const (
	slotRunsSQL = `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = $1 AND r.slot BETWEEN $2 AND $3 ORDER BY r.slot, r.id`
	slotlessRunsSQL = `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = $1 AND r.slot IS NULL AND r.started_at BETWEEN $2 AND $3 ORDER BY r.started_at, r.id`
)

// SlotRuns implements store.Store. Both halves are index range scans, sent in one
// round trip.
func (p *Ledger) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]store.Run, error) {
	var out []store.Run
	scan := func(rows pgx.Rows) error {
		for rows.Next() {
			var n runRow
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
	b.Queue(slotRunsSQL, task, time.Unix(backend.CeilSecond(from), 0).UTC(), sec(to)).Query(scan)
	b.Queue(slotlessRunsSQL, task, milli(from), milli(to.Add(grace))).Query(scan)
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, p.wrap("read ledger", err)
	}
	return out, nil
}

var (
	latestRanSQL = sync.OnceValue(func() string {
		return `SELECT ` + runColumnsLight + ` FROM runs r WHERE r.task = $1 AND ` + backend.RanSQL + `
 AND ` + backend.NotAnOlderExpirySQL("$1", backend.RanSQL) + `
 AND ` + notAnOlderSQL("$1", backend.RanSQL) + ` ORDER BY r.id DESC LIMIT 1`
	})
	// latestShownSQL is the latest run of task $1 as Tasks shows it.
	latestShownSQL = sync.OnceValue(func() string {
		return `SELECT ` + runColumnsLight + ` FROM runs r WHERE r.task = $1 AND ` + backend.NotADuplicateSQL + `
 AND ` + backend.NotAnOlderExpirySQL("$1", backend.NotADuplicateSQL) + `
 AND ` + notAnOlderSQL("$1", backend.NotADuplicateSQL) + ` ORDER BY r.id DESC LIMIT 1`
	})
)

// LatestRan implements store.Store, through the (task, id) index.
func (p *Ledger) LatestRan(ctx context.Context, task string) (*store.Run, error) {
	return p.latestOf(ctx, latestRanSQL(), task)
}

// latestOf is the run query (of task $1) reads, nil when none.
func (p *Ledger) latestOf(ctx context.Context, query, task string) (*store.Run, error) {
	var n runRow
	err := p.pool.QueryRow(ctx, query, task).Scan(n.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	return n.run(), nil
}

// latestListedSlotSQL walks the (task, slot, id) index back from the latest
// slot, past the few records Tasks leaves out.
const latestListedSlotSQL = `SELECT slot FROM runs WHERE task = $1 AND slot IS NOT NULL AND ` + backend.NotADuplicateSQL + `
 ORDER BY slot DESC LIMIT 1`

// LatestListedSlot implements store.Store.
func (p *Ledger) LatestListedSlot(ctx context.Context, task string) (time.Time, error) {
	var v time.Time
	err := p.pool.QueryRow(ctx, latestListedSlotSQL, task).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, p.wrap("read ledger", err)
	}
	return fromDB(&v), nil
}

// LatestSlot implements store.Store.
func (p *Ledger) LatestSlot(ctx context.Context, task string) (time.Time, error) {
	var v *time.Time
	if err := p.pool.QueryRow(ctx, `SELECT MAX(slot) FROM runs WHERE task = $1`, task).Scan(&v); err != nil {
		return time.Time{}, p.wrap("read ledger", err)
	}
	return fromDB(v), nil
}

// EarliestRun implements store.Store.
func (p *Ledger) EarliestRun(ctx context.Context, task string) (time.Time, error) {
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
	return fromDB(&v), nil
}

// PrunedSlots implements store.Store: a pruned succeeded run leaves its
// slot's succeeded_id naming a run that is gone.
func (p *Ledger) PrunedSlots(ctx context.Context, task string, from, to time.Time) ([]time.Time, error) {
	rows, err := p.pool.Query(ctx, `SELECT s.slot FROM slots s WHERE s.task = $1 AND s.slot >= $2 AND s.slot <= $3
 AND s.succeeded_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.succeeded_id) ORDER BY s.slot`,
		task, from.UTC(), to.UTC())
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var slot time.Time
		if err := rows.Scan(&slot); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		out = append(out, slot.UTC())
	}
	return out, p.wrap("read ledger", rows.Err())
}

// LastSucceededSlot implements store.Store. A pruned succeeded run keeps its
// slot's succeeded_id, so the slots table answers for both.
func (p *Ledger) LastSucceededSlot(ctx context.Context, task string, before time.Time) (time.Time, error) {
	var v *time.Time
	err := p.pool.QueryRow(ctx, `SELECT MAX(slot) FROM slots WHERE task = $1 AND slot < $2 AND succeeded_id IS NOT NULL`,
		task, before.UTC()).Scan(&v)
	if err != nil {
		return time.Time{}, p.wrap("read ledger", err)
	}
	return fromDB(v), nil
}

// LastPausedSlot implements store.Store.
func (p *Ledger) LastPausedSlot(ctx context.Context, task string, before time.Time) (time.Time, error) {
	var v *time.Time
	err := p.pool.QueryRow(ctx, `SELECT MAX(slot) FROM runs WHERE task = $1 AND status = 'paused' AND slot < $2
 AND COALESCE(reason, '') <> $3`, task, before.UTC(), store.ReasonReplayPaused).Scan(&v)
	if err != nil {
		return time.Time{}, p.wrap("read ledger", err)
	}
	return fromDB(v), nil
}

// ResolveZone implements store.Store.
func (p *Ledger) ResolveZone(ctx context.Context, task, tz string) (bool, error) {
	tag, err := p.pool.Exec(ctx, `UPDATE tasks SET tz = $1 WHERE name = $2 AND tz IN ('', 'Local', 'localtime')`, tz, task)
	if err != nil {
		return false, p.wrap("write ledger", err)
	}
	return tag.RowsAffected() > 0, nil
}

// lastFailuresSQL reads each task's latest failure from the end of its
// range of the partial index runs_task_failure_end (a MAX the index
// answers, backwards): one index entry per task, however many runs failed
// (and a retry cut in its delay passed over: backend.NotRetryCutSQL).
// A task that never failed reads NULL.
const lastFailuresSQL = `SELECT t.name,
 (SELECT MAX(ended_at) FROM runs WHERE task = t.name AND ` + backend.FailedSQL + ` AND ` + backend.NotRetryCutSQL + `) FROM tasks t`

// LastFailures implements store.Store.
func (p *Ledger) LastFailures(ctx context.Context) (map[string]time.Time, error) {
	rows, err := p.pool.Query(ctx, lastFailuresSQL)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var task string
		var ended *time.Time
		if err := rows.Scan(&task, &ended); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		if at := fromDB(ended); !at.IsZero() {
			out[task] = at
		}
	}
	return out, p.wrap("read ledger", rows.Err())
}

// notAnOlderSQL is the condition, on a runs row of the task the SQL
// expression task names, that it is neither a record of a slot older than
// the latest (backend.NotAnOlderSlotSQL) nor a copy that started before
// another record that could be the latest (backend.NotAnOlderCopySQL): what makes a
// record of the task its latest here, as in the ledger it was copied from.
func notAnOlderSQL(task, kept string) string {
	return backend.NotAnOlderSlotSQL(task, kept) + ` AND ` + backend.NotAnOlderCopySQL(task, kept)
}
