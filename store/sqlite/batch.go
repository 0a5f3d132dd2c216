package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

// The batched reads (store.BatchReads) run the per-task read of the same
// name once per task inside one statement: a subquery per row of tasks (or
// of the names given, from a json_each table: task names are ASCII), each
// served by the index the per-task read uses.

const (
	latestSlotsSQL = `SELECT t.name, (SELECT MAX(slot) FROM runs WHERE task = t.name) FROM tasks t`
	// latestListedSlotsSQL is latestListedSlotSQL for each name.
	latestListedSlotsSQL = `SELECT q.value, (SELECT slot FROM runs WHERE task = q.value AND slot IS NOT NULL AND ` +
		backend.NotADuplicateSQL + ` ORDER BY slot DESC LIMIT 1) FROM json_each(?) q`

	lastFiresSQL = `SELECT t.name, (SELECT started_at FROM runs WHERE task = t.name AND trigger = 'schedule'
 ORDER BY id DESC LIMIT 1) FROM tasks t`
	// statusCountByTaskSQL is statusCountSQL for each task.
	statusCountByTaskSQL = `SELECT t.name, (SELECT count(*) FROM runs WHERE task = t.name AND status = ?) FROM tasks t`
	slotRunsSQL          = `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = ? AND r.slot BETWEEN ? AND ? ORDER BY r.slot, r.id`
	slotlessRunsSQL = `SELECT ` + runColumnsLight + ` FROM runs r
WHERE r.task = ? AND r.slot IS NULL AND r.started_at BETWEEN ? AND ? ORDER BY r.started_at, r.id`
)

// latestRansSQL is latestRanSQL for each name.
var latestRansSQL = sync.OnceValue(func() string {
	return `SELECT ` + runColumnsLight + ` FROM json_each(?) q JOIN runs r ON r.id = (SELECT id FROM runs
 WHERE task = q.value AND ` + backend.RanSQL + ` AND ` + backend.NotAnOlderExpirySQL("q.value", backend.RanSQL) +
		` AND ` + backend.NotAnOlderSlotSQL("q.value", backend.RanSQL) + ` ORDER BY id DESC LIMIT 1)`
})

// LatestSlots implements store.Store.
func (s *Ledger) LatestSlots(ctx context.Context) (map[string]time.Time, error) {
	return numberByName(ctx, s, func(v int64) time.Time { return time.Unix(v, 0).UTC() }, latestSlotsSQL)
}

// LatestListedSlots implements store.Store.
func (s *Ledger) LatestListedSlots(ctx context.Context, tasks []string) (map[string]time.Time, error) {
	if len(tasks) == 0 {
		return map[string]time.Time{}, nil
	}
	names, err := json.Marshal(tasks)
	if err != nil {
		return nil, err
	}
	return numberByName(ctx, s, func(v int64) time.Time { return time.Unix(v, 0).UTC() }, latestListedSlotsSQL, string(names))
}

// LastFires implements store.Store.
func (s *Ledger) LastFires(ctx context.Context) (map[string]time.Time, error) {
	return numberByName(ctx, s, fromMS, lastFiresSQL)
}

// StatusCountByTask implements store.Store.
func (s *Ledger) StatusCountByTask(ctx context.Context, status string) (map[string]int64, error) {
	return numberByName(ctx, s, func(n int64) int64 { return n }, statusCountByTaskSQL, status)
}

// numberByName reads (name, number) rows into a map of each number as
// value reads it, leaving out NULL (no slot, no fire).
func numberByName[T any](ctx context.Context, s *Ledger, value func(int64) T, query string, args ...any) (map[string]T, error) {
	ctx = uncancelled(ctx)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	out := map[string]T{}
	for rows.Next() {
		var name string
		var v sql.NullInt64
		if err := rows.Scan(&name, &v); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		if v.Valid {
			out[name] = value(v.Int64)
		}
	}
	return out, s.wrap("read ledger", rows.Err())
}

// LatestRans implements store.Store.
func (s *Ledger) LatestRans(ctx context.Context, tasks []string) (map[string]*store.Run, error) {
	out := map[string]*store.Run{}
	if len(tasks) == 0 {
		return out, nil
	}
	names, err := json.Marshal(tasks)
	if err != nil {
		return nil, err
	}
	runs, err := s.queryRuns(uncancelled(ctx), latestRansSQL(), string(names))
	for i := range runs {
		out[runs[i].Task] = &runs[i]
	}
	return out, err
}

// BootsOf implements store.Store: a host's spans are one index seek, and
// a fleet has few hosts. (Host names are bytes: not through JSON.)
func (s *Ledger) BootsOf(ctx context.Context, hosts []string) (map[string][]store.Boot, error) {
	out := map[string][]store.Boot{}
	for _, h := range hosts {
		b, err := s.Boots(ctx, h)
		if err != nil {
			return nil, err
		}
		if len(b) > 0 {
			out[h] = b
		}
	}
	return out, nil
}

// SlotRunsOf implements store.Store: SlotRuns' two statements, prepared
// once, for each range in turn (a local ledger has no round trip to save).
func (s *Ledger) SlotRunsOf(ctx context.Context, ranges []store.SlotRange, grace time.Duration,
	fn func(i int, runs []store.Run) error) error {
	if len(ranges) == 0 {
		return nil
	}
	ctx = uncancelled(ctx)
	withSlot, err := s.db.PrepareContext(ctx, slotRunsSQL)
	if err != nil {
		return s.wrap("read ledger", err)
	}
	defer withSlot.Close()
	slotless, err := s.db.PrepareContext(ctx, slotlessRunsSQL)
	if err != nil {
		return s.wrap("read ledger", err)
	}
	defer slotless.Close()
	for i, r := range ranges {
		runs, err := s.stmtRuns(ctx, withSlot, r.Task, backend.CeilSecond(r.From), r.To.Unix())
		if err != nil {
			return err
		}
		more, err := s.stmtRuns(ctx, slotless, r.Task, r.From.UnixMilli(), r.To.Add(grace).UnixMilli())
		if err != nil {
			return err
		}
		if err := fn(i, append(runs, more...)); err != nil {
			return err
		}
	}
	return nil
}

// stmtRuns runs a prepared query of runs (runColumnsLight).
func (s *Ledger) stmtRuns(ctx context.Context, st *sql.Stmt, args ...any) ([]store.Run, error) {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []store.Run
	for rows.Next() {
		var n nullRun
		if err := rows.Scan(n.dest()...); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		out = append(out, *n.run())
	}
	return out, s.wrap("read ledger", rows.Err())
}
