package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

func (s *Ledger) queryRuns(ctx context.Context, query string, args ...any) ([]store.Run, error) {
	return s.scanRuns(ctx, (*nullRun).dest, query, args...)
}

// scanRuns runs a query of runs; dest picks the columns (with or without
// the tails) the query selects.
func (s *Ledger) scanRuns(ctx context.Context, dest func(*nullRun) []any, query string, args ...any) ([]store.Run, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []store.Run
	for rows.Next() {
		var n nullRun
		if err := rows.Scan(dest(&n)...); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		out = append(out, *n.run())
	}
	return out, s.wrap("read ledger", rows.Err())
}

// History implements store.Store.
func (s *Ledger) History(ctx context.Context, f store.HistoryFilter) ([]store.Run, error) {
	ctx = uncancelled(ctx)
	if f.Limit <= 0 {
		f.Limit = 20
	}
	q := `SELECT ` + runColumnsLight + ` FROM runs r WHERE 1=1`
	var args []any
	if f.Task != "" {
		q += ` AND r.task = ?`
		args = append(args, f.Task)
	}
	if f.Status != "" {
		q += ` AND r.status = ?`
		args = append(args, f.Status)
	}
	if !f.Since.IsZero() {
		q += ` AND r.started_at >= ?`
		args = append(args, f.Since.UnixMilli())
	}
	q += ` ORDER BY r.id DESC LIMIT ?`
	args = append(args, f.Limit)
	return s.queryRuns(ctx, q, args...)
}

// Running implements store.Store.
func (s *Ledger) Running(ctx context.Context) ([]store.Run, error) {
	ctx = uncancelled(ctx)
	return s.queryRuns(ctx, `SELECT `+runColumnsLight+` FROM runs r WHERE r.status = 'running' ORDER BY r.id`)
}

// SlotRuns implements store.Store. Both halves are index range scans.
func (s *Ledger) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]store.Run, error) {
	ctx = uncancelled(ctx)
	withSlot, err := s.queryRuns(ctx, `SELECT `+runColumnsLight+` FROM runs r
WHERE r.task = ? AND r.slot BETWEEN ? AND ? ORDER BY r.slot, r.id`, task, backend.CeilSecond(from), to.Unix())
	if err != nil {
		return nil, err
	}
	slotless, err := s.queryRuns(ctx, `SELECT `+runColumnsLight+` FROM runs r
WHERE r.task = ? AND r.slot IS NULL AND r.started_at BETWEEN ? AND ? ORDER BY r.started_at, r.id`,
		task, from.UnixMilli(), to.Add(grace).UnixMilli())
	if err != nil {
		return nil, err
	}
	return append(withSlot, slotless...), nil
}

var (
	latestRanSQL = sync.OnceValue(func() string {
		return `SELECT ` + runColumnsLight + ` FROM runs r WHERE r.task = ?1 AND ` + backend.RanSQL + `
 AND ` + backend.NotAnOlderExpirySQL("?1", backend.RanSQL) + `
 AND ` + backend.NotAnOlderSlotSQL("?1", backend.RanSQL) + ` ORDER BY r.id DESC LIMIT 1`
	})
	// latestShownSQL is the latest run of task ?1 as Tasks shows it.
	latestShownSQL = sync.OnceValue(func() string {
		return `SELECT ` + runColumnsLight + ` FROM runs r WHERE r.task = ?1 AND ` + backend.NotADuplicateSQL + `
 AND ` + backend.NotAnOlderExpirySQL("?1", backend.NotADuplicateSQL) + `
 AND ` + backend.NotAnOlderSlotSQL("?1", backend.NotADuplicateSQL) + ` ORDER BY r.id DESC LIMIT 1`
	})
)

// LatestRan implements store.Store, through the (task, id) index.
func (s *Ledger) LatestRan(ctx context.Context, task string) (*store.Run, error) {
	return s.latestOf(ctx, latestRanSQL(), task)
}

// latestOf is the run query (of task ?1) reads, nil when none.
func (s *Ledger) latestOf(ctx context.Context, query, task string) (*store.Run, error) {
	ctx = uncancelled(ctx)
	var n nullRun
	err := s.db.QueryRowContext(ctx, query, task).Scan(n.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	return n.run(), nil
}

// latestListedSlotSQL walks the (task, slot) index back from the latest
// slot, past the few records Tasks leaves out.
const latestListedSlotSQL = `SELECT slot FROM runs WHERE task = ? AND slot IS NOT NULL AND ` + backend.NotADuplicateSQL + `
 ORDER BY slot DESC LIMIT 1`

// LatestListedSlot implements store.Store.
func (s *Ledger) LatestListedSlot(ctx context.Context, task string) (time.Time, error) {
	ctx = uncancelled(ctx)
	var v int64
	err := s.db.QueryRowContext(ctx, latestListedSlotSQL, task).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, s.wrap("read ledger", err)
	}
	return time.Unix(v, 0).UTC(), nil
}

// LatestSlot implements store.Store.
func (s *Ledger) LatestSlot(ctx context.Context, task string) (time.Time, error) {
	ctx = uncancelled(ctx)
	var v sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(slot) FROM runs WHERE task = ?`, task).Scan(&v)
	if err != nil || !v.Valid {
		return time.Time{}, s.wrap("read ledger", err)
	}
	return time.Unix(v.Int64, 0).UTC(), nil
}

// EarliestRun implements store.Store.
func (s *Ledger) EarliestRun(ctx context.Context, task string) (time.Time, error) {
	ctx = uncancelled(ctx)
	var v sql.NullInt64
	// Ids grow with time: the first run by id is the earliest, found through
	// the (task, id) index without reading the task's history.
	err := s.db.QueryRowContext(ctx, `SELECT started_at FROM runs WHERE task = ? ORDER BY id LIMIT 1`, task).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil || !v.Valid {
		return time.Time{}, s.wrap("read ledger", err)
	}
	return fromMS(v.Int64), nil
}

// LastSucceededSlot implements Store.
func (s *Ledger) LastSucceededSlot(ctx context.Context, task string, before time.Time) (time.Time, error) {
	ctx = uncancelled(ctx)
	var v sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(slot) FROM (
  SELECT MAX(slot) AS slot FROM runs WHERE task = ? AND slot < ? AND status = 'succeeded'
  UNION ALL SELECT MAX(slot) FROM pruned_slots WHERE task = ? AND slot < ?)`,
		task, ceilSecond(before), task, ceilSecond(before)).Scan(&v)
	if err != nil || !v.Valid {
		return time.Time{}, s.wrap("read ledger", err)
	}
	return time.Unix(v.Int64, 0).UTC(), nil
}

// LastPausedSlot implements Store.
func (s *Ledger) LastPausedSlot(ctx context.Context, task string, before time.Time) (time.Time, error) {
	ctx = uncancelled(ctx)
	var v sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(slot) FROM runs WHERE task = ? AND status = 'paused' AND slot < ?
 AND COALESCE(reason, '') <> ?`, task, ceilSecond(before), store.ReasonReplayPaused).Scan(&v)
	if err != nil || !v.Valid {
		return time.Time{}, s.wrap("read ledger", err)
	}
	return time.Unix(v.Int64, 0).UTC(), nil
}

// PrunedSlots implements Store.
func (s *Ledger) PrunedSlots(ctx context.Context, task string, from, to time.Time) ([]time.Time, error) {
	ctx = uncancelled(ctx)
	rows, err := s.db.QueryContext(ctx, `SELECT slot FROM pruned_slots WHERE task = ? AND slot >= ? AND slot <= ? ORDER BY slot`,
		task, ceilSecond(from), to.Unix())
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var slot int64
		if err := rows.Scan(&slot); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		out = append(out, time.Unix(slot, 0).UTC())
	}
	return out, s.wrap("read ledger", rows.Err())
}

// ResolveZone implements Store.
func (s *Ledger) ResolveZone(ctx context.Context, task, tz string) (bool, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return false, err
	}
	var n int64
	err := s.write(ctx, func(ctx context.Context, e readWriter) error {
		res, err := e.ExecContext(ctx, `UPDATE tasks SET tz = ? WHERE name = ? AND tz IN ('', 'Local', 'localtime')`, tz, task)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	return n > 0, s.wrap("write ledger", err)
}

// ceilSecond is t in Unix seconds, rounded up: slots are whole seconds, so
// the first slot at or after t is at this second.
func ceilSecond(t time.Time) int64 {
	if t.Nanosecond() != 0 {
		return t.Unix() + 1
	}
	return t.Unix()
}

// lastFailuresSQL reads each task's latest failure from the end of its
// range of the partial index runs_task_failure_end (a MAX the index
// answers): one index entry per task, however many runs failed (and
// the row of a retry cut in its delay passed over: backend.NotRetryCutSQL). A task
// that never failed reads NULL (a filter on it would run the subquery twice).
const lastFailuresSQL = `SELECT t.name,
 (SELECT MAX(ended_at) FROM runs WHERE task = t.name AND ` + failedSQL + ` AND ` + backend.NotRetryCutSQL + `) FROM tasks t`

// failedSQL is backend.FailedSQL as three comparisons, word for word the
// condition of this backend's partial index runs_task_failure_end (schema
// version 10): SQLite tests an IN list of more than two constants with a
// temporary b-tree, which the index's condition made at every write of a
// run (TestRunWritesBuildNoTempTable).
const failedSQL = `(status = 'failed' OR status = 'timeout' OR status = 'interrupted')`

// LastFailures implements store.Store.
func (s *Ledger) LastFailures(ctx context.Context) (map[string]time.Time, error) {
	ctx = uncancelled(ctx)
	rows, err := s.db.QueryContext(ctx, lastFailuresSQL)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var task string
		var ended sql.NullInt64
		if err := rows.Scan(&task, &ended); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		if ended.Valid && ended.Int64 != 0 {
			out[task] = fromMS(ended.Int64)
		}
	}
	return out, s.wrap("read ledger", rows.Err())
}
