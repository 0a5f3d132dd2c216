package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
	"github.com/jackc/pgx/v5"
)

// The batched reads (store.BatchReads) run the per-task read of the same
// name once per task inside one statement: a subquery per row of tasks (or
// of the names given, unnested from an array), each served by the index
// the per-task read uses.

const (
	latestSlotsSQL = `SELECT t.name, (SELECT MAX(slot) FROM runs WHERE task = t.name) FROM tasks t`
	// latestListedSlotsSQL is latestListedSlotSQL for each name.
	latestListedSlotsSQL = `SELECT q.name, (SELECT slot FROM runs WHERE task = q.name AND slot IS NOT NULL AND ` +
		backend.NotADuplicateSQL + ` ORDER BY slot DESC LIMIT 1) FROM unnest($1::text[]) AS q(name)`

	lastFiresSQL = `SELECT t.name, (SELECT started_at FROM runs WHERE task = t.name AND trigger = 'schedule'
 ORDER BY id DESC LIMIT 1) FROM tasks t`
	// statusCountByTaskSQL is statusCountSQL for each task.
	statusCountByTaskSQL = `SELECT t.name, (SELECT count(*) FROM runs WHERE task = t.name AND status = $1) FROM tasks t`
	bootsOfSQL           = `SELECT host, boot_id, boot_time, first_seen, last_seen FROM boots
WHERE host = ANY($1::text[]) ORDER BY id`
)

// latestRansSQL is latestRanSQL for each name.
var latestRansSQL = sync.OnceValue(func() string {
	return `SELECT ` + runColumnsLight + ` FROM unnest($1::text[]) AS q(name)
 CROSS JOIN LATERAL (SELECT * FROM runs WHERE task = q.name AND ` + backend.RanSQL + `
 AND ` + backend.NotAnOlderExpirySQL("q.name", backend.RanSQL) + `
 AND ` + notAnOlderSQL("q.name", backend.RanSQL) + ` ORDER BY id DESC LIMIT 1) r`
})

// LatestSlots implements store.Store.
func (p *Ledger) LatestSlots(ctx context.Context) (map[string]time.Time, error) {
	return p.timeByName(ctx, latestSlotsSQL)
}

// LatestListedSlots implements store.Store.
func (p *Ledger) LatestListedSlots(ctx context.Context, tasks []string) (map[string]time.Time, error) {
	if len(tasks) == 0 {
		return map[string]time.Time{}, nil
	}
	return p.timeByName(ctx, latestListedSlotsSQL, tasks)
}

// LastFires implements store.Store.
func (p *Ledger) LastFires(ctx context.Context) (map[string]time.Time, error) {
	return p.timeByName(ctx, lastFiresSQL)
}

// timeByName reads (name, time) rows into a map, leaving out NULL times.
func (p *Ledger) timeByName(ctx context.Context, query string, args ...any) (map[string]time.Time, error) {
	rows, err := p.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var name string
		var at *time.Time
		if err := rows.Scan(&name, &at); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		if v := fromDB(at); !v.IsZero() {
			out[name] = v
		}
	}
	return out, p.wrap("read ledger", rows.Err())
}

// LatestRans implements store.Store.
func (p *Ledger) LatestRans(ctx context.Context, tasks []string) (map[string]*store.Run, error) {
	out := map[string]*store.Run{}
	if len(tasks) == 0 {
		return out, nil
	}
	runs, err := p.queryRuns(ctx, p.pool, latestRansSQL(), tasks)
	for i := range runs {
		out[runs[i].Task] = &runs[i]
	}
	return out, err
}

// StatusCountByTask implements store.Store.
func (p *Ledger) StatusCountByTask(ctx context.Context, status string) (map[string]int64, error) {
	rows, err := p.pool.Query(ctx, statusCountByTaskSQL, status)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		if n > 0 {
			out[name] = n
		}
	}
	return out, p.wrap("read ledger", rows.Err())
}

// BootsOf implements store.Store.
func (p *Ledger) BootsOf(ctx context.Context, hosts []string) (map[string][]store.Boot, error) {
	out := map[string][]store.Boot{}
	if len(hosts) == 0 {
		return out, nil
	}
	stored := make([]string, len(hosts))
	for i, h := range hosts {
		stored[i] = dbText(h)
	}
	rows, err := p.pool.Query(ctx, bootsOfSQL, stored)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	for rows.Next() {
		b, err := scanBoot(rows)
		if err != nil {
			return nil, p.wrap("read ledger", err)
		}
		out[b.Host] = append(out[b.Host], b)
	}
	return out, p.wrap("read ledger", rows.Err())
}

// slotRunsOfSQL is slotRunsSQL and slotlessRunsSQL for each range ($1-$5:
// its task, its slots' bounds, its slotless runs' starts), in the ranges'
// order (the unnested rows come in it: the sort is of each range's runs
// alone), each range's runs in SlotRuns' order.
const slotRunsOfSQL = `SELECT q.i, ` + runColumnsLight + `
FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[])
 WITH ORDINALITY AS q(task, slot_from, slot_to, start_from, start_to, i)
CROSS JOIN LATERAL (
 SELECT ` + runColumnsLight + ` FROM runs r WHERE r.task = q.task AND r.slot BETWEEN q.slot_from AND q.slot_to
 UNION ALL
 SELECT ` + runColumnsLight + ` FROM runs r WHERE r.task = q.task AND r.slot IS NULL
  AND r.started_at BETWEEN q.start_from AND q.start_to) r
ORDER BY q.i, r.slot IS NULL, COALESCE(r.slot, r.started_at), r.id`

// slotRunsOfArgs are slotRunsOfSQL's arguments for ranges, bounded as
// SlotRuns bounds them.
func slotRunsOfArgs(ranges []store.SlotRange, grace time.Duration) []any {
	tasks := make([]string, len(ranges))
	var slotFrom, slotTo, startFrom, startTo []time.Time
	for i, r := range ranges {
		tasks[i] = r.Task
		slotFrom = append(slotFrom, time.Unix(backend.CeilSecond(r.From), 0).UTC())
		slotTo = append(slotTo, time.Unix(r.To.Unix(), 0).UTC())
		startFrom = append(startFrom, time.UnixMilli(r.From.UnixMilli()).UTC())
		startTo = append(startTo, time.UnixMilli(r.To.Add(grace).UnixMilli()).UTC())
	}
	return []any{tasks, slotFrom, slotTo, startFrom, startTo}
}

// SlotRunsOf implements store.Store, in one statement read as fn takes its
// rows.
func (p *Ledger) SlotRunsOf(ctx context.Context, ranges []store.SlotRange, grace time.Duration,
	fn func(i int, runs []store.Run) error) error {
	if len(ranges) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := p.pool.Query(ctx, slotRunsOfSQL, slotRunsOfArgs(ranges, grace)...)
	if err != nil {
		return p.wrap("read ledger", err)
	}
	err = p.passRanges(rows, len(ranges), fn)
	cancel() // before the rows are closed: a read that fn ended is not read to its end
	rows.Close()
	return err
}

// passRanges passes fn the rows (range number from 1, then a run) of
// slotRunsOfSQL, range by range, each of the n ranges once.
func (p *Ledger) passRanges(rows pgx.Rows, n int, fn func(i int, runs []store.Run) error) error {
	next, cur := 0, -1 // the next range fn is to get; the range being read
	var runs []store.Run
	pass := func(upTo int) error { // fn gets the ranges before upTo
		for ; next < upTo; next++ {
			var these []store.Run
			if next == cur {
				these, runs = runs, nil
			}
			if err := fn(next, these); err != nil {
				return err
			}
		}
		return nil
	}
	for rows.Next() {
		var i int64
		var r runRow
		if err := rows.Scan(append([]any{&i}, r.dest()...)...); err != nil {
			return p.wrap("read ledger", err)
		}
		if k := int(i - 1); k != cur {
			if err := pass(k); err != nil {
				return err
			}
			cur = k
		}
		runs = append(runs, *r.run())
	}
	if err := rows.Err(); err != nil {
		return p.wrap("read ledger", err)
	}
	return pass(n)
}
