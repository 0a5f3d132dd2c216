package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

// pruneWith names the runs Prune deletes, as the CTE doomed, among the
// runs of the tasks listed by tasks (one column, task). ?1 is the number
// of newest runs kept per task minus one, ?2 the bound (unix ms), ?3 the
// records a dry run counts as added first (backend.PruneAdding: task -> n,
// newer than every run; "{}" for a real prune), ?4 the tasks left whole,
// ?5 those of the added records that LatestRan counts
// (backend.PruneAddingRan), ?6 the earliest slot owed of each task that has
// one (backend.PruneOwed: task -> Unix seconds; only the runs of earlier
// slots go, a run without a slot when it ended before it). Keep is counted three times:
// below is, for each task, the id of the oldest run kept among the records
// Tasks takes for the latest (not a duplicate fire's), ran_below among
// those LatestRan takes (not paused either), done_below among those that
// ran (backend.DoneSQL: not expired either; a dry run's added records are
// none of them). A record goes only when below the cut of each count it is
// in: paused records never push out a run ls shows once the pause is over,
// expired ones (a long outage's, prune's own) never push out the runs that
// ran before it. A NULL cut (fewer runs than kept) keeps
// every record of that count. cut is MATERIALIZED: flattened into the
// join, its subqueries ran once per run (12 s for a million runs). more
// ends doomed's WHERE (a batch's bounds).
func pruneWith(tasks, more string) string {
	return `WITH adding(task, n) AS (SELECT key, value FROM json_each(?3)),
adding_ran(task, n, last, lastp) AS (SELECT key, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?5)),
cut AS MATERIALIZED (
  SELECT k.task, ` + pruneCutSQL("a.n", backend.NotADuplicateSQL) + ` AS below,
    ` + pruneCutSQL("ar.n", backend.RanSQL) + ` AS ran_below,
    ` + pruneCutSQL("NULL", backend.DoneSQL) + ` AS done_below,
    ` + backend.PruneKeptSQL(false) + `,
    (SELECT o.value FROM json_each(?6) o WHERE o.key = k.task) AS owed
  FROM (` + tasks + `) k
  LEFT JOIN adding a ON a.task = k.task LEFT JOIN adding_ran ar ON ar.task = k.task),
doomed AS (
  SELECT r.id, r.task, r.slot, r.status FROM cut CROSS JOIN runs r ON r.task = cut.task AND r.id < cut.below
  WHERE r.status <> 'running' AND r.ended_at > 0 AND r.ended_at < ?2
    AND (r.id < cut.ran_below OR NOT (` + backend.RanSQL + `))
    AND (r.id < cut.done_below OR NOT (` + backend.DoneSQL + `))
    AND (cut.owed IS NULL OR r.slot < cut.owed OR (r.slot IS NULL AND r.ended_at < cut.owed * 1000))
    AND ` + backend.PruneNotKeptSQL + more + `)
`
}

// pruneCutSQL is the id of the ?1-th newest run of task k.task among the
// runs where counted holds, found through the (task, id) index; with n
// added (the SQL expression n: column n of a joined adding table, NULL for
// none), the (?1-n)-th, among the
// ?1+1 newest, or none (the largest id) when the added ones are all it keeps.
func pruneCutSQL(n, counted string) string {
	return `CASE
    WHEN ` + n + ` IS NULL THEN (SELECT x.id FROM runs x WHERE x.task = k.task AND ` + counted + `
      ORDER BY x.id DESC LIMIT 1 OFFSET ?1)
    WHEN ` + n + ` > ?1 THEN 9223372036854775807
    ELSE (SELECT w.id FROM (SELECT x.id, row_number() OVER (ORDER BY x.id DESC) AS rn FROM runs x
      WHERE x.task = k.task AND ` + counted + ` ORDER BY x.id DESC LIMIT ?1 + 1) w
      WHERE w.rn = ?1 + 1 - ` + n + `) END`
}

var (
	pruneCountSQL = sync.OnceValue(func() string {
		return pruneWith(`SELECT DISTINCT task FROM runs WHERE task NOT IN (SELECT value FROM json_each(?4))`, ``) +
			`SELECT count(*) FROM doomed`
	})
	// A batch: the first ?9 doomed runs of task ?7 after run ?8, in
	// order of id, through the (task, id) index.
	pruneBatchWith = sync.OnceValue(func() string {
		return pruneWith(`SELECT ?7 AS task WHERE ?7 NOT IN (SELECT value FROM json_each(?4))`, ` AND r.id > ?8 ORDER BY r.id LIMIT ?9`)
	})
	// A slot whose succeeded run goes stays done, through pruned_slots.
	pruneKeepSlotsSQL = sync.OnceValue(func() string {
		return pruneBatchWith() + `INSERT INTO pruned_slots (task, slot, run_id)
SELECT task, slot, max(id) FROM doomed WHERE status = 'succeeded' AND slot IS NOT NULL GROUP BY task, slot
ON CONFLICT (task, slot) DO UPDATE SET run_id = max(run_id, excluded.run_id)`
	})
	// The task's prune floor (pruned_through) rises to the batch's latest
	// slot: no command lowers the watermark below it again.
	pruneFloorSQL = sync.OnceValue(func() string {
		return pruneBatchWith() + `UPDATE tasks SET pruned_through = (SELECT max(slot) FROM doomed) * 1000
WHERE name = ?7 AND pruned_through < (SELECT max(slot) FROM doomed) * 1000`
	})
	pruneDeleteSQL = sync.OnceValue(func() string {
		return pruneBatchWith() + `DELETE FROM runs WHERE id IN (SELECT id FROM doomed) RETURNING id`
	})
	// pruneTasksSQL lists the tasks with runs but those left whole (?1),
	// one index seek each rather than a scan of every run.
	pruneTasksSQL = `WITH RECURSIVE k(task) AS (SELECT min(task) FROM runs
  UNION ALL SELECT (SELECT min(task) FROM runs WHERE task > k.task) FROM k WHERE k.task IS NOT NULL)
SELECT task FROM k WHERE task IS NOT NULL AND task NOT IN (SELECT value FROM json_each(?1))`
)

// Prune implements store.Store. The watermarks move first; then the runs
// go task by task, in batches of req.Batch, each one immediate transaction
// that keeps the slots of its succeeded runs done, so that a fire waits
// for one batch, never for the whole prune, and a prune stopped between
// two batches leaves a consistent ledger. Each of those transactions reads
// the rows of the tasks of req.Of it writes, and leaves one refused from
// then on (backend.PruneRefuses). Then the WAL is checkpointed and the file
// rewritten (VACUUM, which needs no transaction open), so that the space
// goes back to the file system.
func (s *Ledger) Prune(ctx context.Context, req store.PruneRequest) (store.PruneResult, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return store.PruneResult{}, err
	}
	if req.Before.IsZero() {
		return store.PruneResult{}, nil
	}
	if req.DryRun {
		var res store.PruneResult
		err := s.db.QueryRowContext(ctx, pruneCountSQL(), pruneArgs(req)...).Scan(&res.Runs)
		return res, s.wrap("read ledger", err)
	}
	refused, err := s.pruneWatermarks(ctx, req)
	if err != nil {
		return store.PruneResult{}, err
	}
	req = backend.PruneLeaving(req, refused)
	args := pruneArgs(req)
	tasks, err := s.pruneTasks(ctx, req)
	if err != nil {
		return store.PruneResult{Refused: refused}, err
	}
	n, err := backend.PruneInBatches(tasks, req, refused, func(task string, after int64, limit int) (int64, int64, error) {
		start := time.Now()
		n, last, err := s.pruneBatch(ctx, req, task, append(args, task, after, limit))
		if err == nil && n == int64(limit) {
			// A writer waiting for the lock polls it every 100 ms at most
			// (SQLite's busy handler): rest as long as the batch held it,
			// or the next batch would take it back first, again and again.
			time.Sleep(min(time.Since(start), 100*time.Millisecond))
		}
		return n, last, err
	})
	if len(refused) == 0 {
		refused = nil
	}
	if err != nil {
		return store.PruneResult{Runs: n, Refused: refused}, err
	}
	res := store.PruneResult{Runs: n, Refused: refused}
	// VACUUM holds the write lock while it rewrites every page kept (some
	// seconds a million runs): it runs only when the free pages are a
	// quarter of the file or more, those this prune freed or those an
	// earlier one could not give back (its VACUUM failed on a full disk).
	// Fewer are reused by the runs recorded next.
	var free, pages int64
	if err := s.db.QueryRowContext(ctx, `SELECT f.freelist_count, p.page_count FROM pragma_freelist_count f, pragma_page_count p`).
		Scan(&free, &pages); err != nil || free == 0 || free*4 < pages {
		return res, nil
	}
	if err := s.reclaim(ctx); err != nil {
		runs := "runs"
		if n == 1 {
			runs = "run"
		}
		return res, fmt.Errorf("deleted %d %s, but %w; catchup prune gives the space back once there is room", n, runs, err)
	}
	return res, nil
}

// pruneArgs are pruneWith's first arguments (?1 to ?6) for req.
func pruneArgs(req store.PruneRequest) []any {
	return []any{backend.PruneOffset(req), ms(req.Before), backend.PruneAdding(req), backend.PruneLeave(req),
		backend.PruneAddingRan(req), backend.PruneOwed(req)}
}

// pruneTasks lists the tasks whose runs Prune reads, but those left whole.
func (s *Ledger) pruneTasks(ctx context.Context, req store.PruneRequest) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, pruneTasksSQL, backend.PruneLeave(req))
	if err != nil {
		return nil, s.wrap("read ledger", err)
	}
	defer rows.Close()
	var tasks []string
	for rows.Next() {
		var task string
		if err := rows.Scan(&task); err != nil {
			return nil, s.wrap("read ledger", err)
		}
		tasks = append(tasks, task)
	}
	return tasks, s.wrap("read ledger", rows.Err())
}

// pruneBatch deletes one batch of task's runs (pruneBatchWith's
// arguments) in one transaction, keeping the slots of its succeeded runs
// done, and returns how many runs went and the largest id among them. A
// task of req.Of it refuses, its row read in the transaction, it leaves
// (the error of backend.PruneRefuses).
func (s *Ledger) pruneBatch(ctx context.Context, req store.PruneRequest, task string, args []any) (n, last int64, err error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return 0, 0, s.wrap("prune ledger", err)
	}
	defer tx.Rollback()
	if _, ok := req.Of[task]; ok {
		var at, retired int64
		err := tx.QueryRowContext(ctx, `SELECT registered_at, retired_at FROM tasks WHERE name = ?`, task).Scan(&at, &retired)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, 0, s.wrap("read ledger", err)
		}
		if err := backend.PruneRefuses(req, task, err == nil, fromMS(at), fromMS(retired)); err != nil {
			return 0, 0, err
		}
	}
	for _, q := range []string{pruneKeepSlotsSQL(), pruneFloorSQL()} {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, 0, s.wrap("prune ledger", err)
		}
	}
	rows, err := tx.QueryContext(ctx, pruneDeleteSQL(), args...)
	if err != nil {
		return 0, 0, s.wrap("prune ledger", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, 0, s.wrap("prune ledger", err)
		}
		n, last = n+1, max(last, id)
	}
	if err := rows.Close(); err != nil {
		return 0, 0, s.wrap("prune ledger", err)
	}
	if err := rows.Err(); err != nil {
		return 0, 0, s.wrap("prune ledger", err)
	}
	return n, last, s.wrap("prune ledger", tx.Commit())
}

// reclaim gives the free pages of the ledger back to the file system. The
// VACUUM goes through the WAL, so a second checkpoint truncates the file
// (and the WAL) to the new size.
func (s *Ledger) reclaim(ctx context.Context) error {
	for _, q := range []string{`PRAGMA wal_checkpoint(TRUNCATE)`, `VACUUM`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return s.wrap(fmt.Sprintf("reclaim space (%s) in", q), err)
		}
	}
	s.syncWALIndex()
	return nil
}
