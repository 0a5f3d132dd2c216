package postgres

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

// pruneWith names the runs Prune deletes, as the CTE doomed, among the
// runs of the tasks listed by tasks (one column, task). $1 is the
// OFFSET of the newest kept run of a task (backend.PruneOffset), $2 the
// bound, $3 the records a dry run counts as added first
// (backend.PruneAdding: task -> n, newer than every run; "{}" for a real
// prune), $4 the tasks left whole (backend.PruneLeave: a JSON array; none
// of their runs goes), $5 those of the added records LatestRan counts
// (backend.PruneAddingRan), $6 the earliest slot owed of each task that has
// one (backend.PruneOwed: task -> Unix seconds; only the runs of earlier
// slots go, a run without a slot when it ended before it). Keep is counted
// three times (pruneCutSQL): below is,
// for each task, the id of the oldest run kept among the records Tasks
// takes for the latest (not a duplicate fire's), ran_below among those
// LatestRan takes (not paused either), done_below among those that ran
// (backend.DoneSQL: not expired either; a dry run's added records are none
// of them). A record goes only when below the cut of each count it is in:
// paused records never push out a run ls shows once the pause is over,
// expired ones (a long outage's, prune's own) never push out the runs that
// ran before it. A NULL cut (fewer runs than kept) keeps every
// record of that count. more ends doomed's WHERE (a batch's bounds).
func pruneWith(tasks, more string) string {
	return `WITH adding AS (SELECT key AS task, value::int AS n FROM jsonb_each_text($3::jsonb)),
adding_ran AS (SELECT key AS task, (value->>0)::int AS n, to_timestamp((value->>1)::bigint) AS last,
  to_timestamp((value->>2)::bigint) AS lastp FROM jsonb_each($5::jsonb)),
cut AS MATERIALIZED (
  SELECT k.task, ` + pruneCutSQL("a.n", backend.NotADuplicateSQL) + ` AS below,
    ` + pruneCutSQL("ar.n", backend.RanSQL) + ` AS ran_below,
    ` + pruneCutSQL("NULL", backend.DoneSQL) + ` AS done_below,
    ` + backend.PruneKeptSQL(true) + `,
    (SELECT to_timestamp(o.value::bigint) FROM jsonb_each_text($6::jsonb) o WHERE o.key = k.task) AS owed
  FROM (` + tasks + `) k
  LEFT JOIN adding a ON a.task = k.task LEFT JOIN adding_ran ar ON ar.task = k.task),
doomed AS (
  SELECT r.id FROM cut JOIN runs r ON r.task = cut.task AND r.id < cut.below
  WHERE r.status <> 'running' AND r.ended_at < $2
    AND (r.id < cut.ran_below OR NOT (` + backend.RanSQL + `))
    AND (r.id < cut.done_below OR NOT (` + backend.DoneSQL + `))
    AND (cut.owed IS NULL OR r.slot < cut.owed OR (r.slot IS NULL AND r.ended_at < cut.owed))
    AND ` + backend.PruneNotKeptSQL + more + `)
`
}

// pruneCutSQL is the id of the newest kept run of task k.task among the
// runs where counted holds, found through the (task, id) index: with n
// added (the SQL expression n: column n of a joined adding table, NULL for
// none), n places nearer; none
// (the largest id) when the added ones are all it keeps.
func pruneCutSQL(n, counted string) string {
	return `CASE WHEN coalesce(` + n + `, 0) > $1::int THEN 9223372036854775807
    ELSE (SELECT x.id FROM runs x WHERE x.task = k.task AND ` + counted + `
      ORDER BY x.id DESC LIMIT 1 OFFSET $1::int - coalesce(` + n + `, 0)) END`
}

var (
	pruneCountSQL = sync.OnceValue(func() string {
		return pruneWith(`SELECT DISTINCT task FROM runs WHERE task NOT IN (SELECT jsonb_array_elements_text($4::jsonb))`, ``) +
			`SELECT count(*) FROM doomed`
	})
	// A batch: the first $9 doomed runs of task $7 after run $8, in order
	// of id. The conditions are checked again on the row deleted: a run
	// changed since the statement's snapshot is judged as it is now. The
	// task's prune floor (pruned_through) rises to the latest slot deleted:
	// no command lowers the watermark below it again.
	pruneDeleteSQL = sync.OnceValue(func() string {
		return pruneWith(`SELECT $7::text AS task WHERE $7::text NOT IN (SELECT jsonb_array_elements_text($4::jsonb))`, ` AND r.id > $8 ORDER BY r.id LIMIT $9`) +
			`, deleted AS (DELETE FROM runs d USING doomed
WHERE d.id = doomed.id AND d.status <> 'running' AND d.ended_at < $2 RETURNING d.id, d.slot),
floor AS (UPDATE tasks t SET pruned_through = m.slot FROM (SELECT max(slot) AS slot FROM deleted) m
WHERE t.name = $7 AND m.slot IS NOT NULL AND (t.pruned_through IS NULL OR t.pruned_through < m.slot))
SELECT id FROM deleted`
	})
	// pruneTasksSQL lists the tasks with runs but those left whole ($1),
	// one index seek each rather than a scan of every run.
	pruneTasksSQL = `WITH RECURSIVE k(task) AS (SELECT min(task) FROM runs
  UNION ALL SELECT (SELECT min(task) FROM runs WHERE task > k.task) FROM k WHERE k.task IS NOT NULL)
SELECT task FROM k WHERE task IS NOT NULL AND task NOT IN (SELECT jsonb_array_elements_text($1::jsonb))`
)

// Prune implements store.Store. The watermarks move first; then the runs go
// task by task, in batches of req.Batch, one statement (a transaction)
// each, so that no transaction holds the rows of a whole prune; a batch of
// a task of req.Of is one transaction that first locks and reads the
// task's row, and leaves the task refused from then on
// (backend.PruneRefuses). The slots table needs nothing: the succeeded_id
// of a slot whose succeeded run goes keeps the run's id (the sync
// statements never lower it), so the slot stays done. Space is left to
// autovacuum.
func (p *Ledger) Prune(ctx context.Context, req store.PruneRequest) (store.PruneResult, error) {
	if req.Before.IsZero() {
		return store.PruneResult{}, nil
	}
	if req.DryRun {
		var res store.PruneResult
		err := p.pool.QueryRow(ctx, pruneCountSQL(), pruneArgs(req)...).Scan(&res.Runs)
		return res, p.wrap("read ledger", err)
	}
	refused, err := p.pruneWatermarks(ctx, req)
	if err != nil {
		return store.PruneResult{}, err
	}
	req = backend.PruneLeaving(req, refused)
	args := pruneArgs(req)
	rows, err := p.pool.Query(ctx, pruneTasksSQL, backend.PruneLeave(req))
	if err != nil {
		return store.PruneResult{}, p.wrap("read ledger", err)
	}
	tasks, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return store.PruneResult{}, p.wrap("read ledger", err)
	}
	n, err := backend.PruneInBatches(tasks, req, refused, func(task string, after int64, limit int) (int64, int64, error) {
		return p.pruneBatch(ctx, req, task, append(args, task, after, limit))
	})
	if len(refused) == 0 {
		refused = nil
	}
	return store.PruneResult{Runs: n, Refused: refused}, err
}

// pruneArgs are pruneWith's first arguments ($1 to $6) for req.
func pruneArgs(req store.PruneRequest) []any {
	return []any{backend.PruneOffset(req), dbTime(req.Before), backend.PruneAdding(req), backend.PruneLeave(req),
		backend.PruneAddingRan(req), backend.PruneOwed(req)}
}

// pruneWatermarks moves the watermarks up to the cut (a task owed a slot
// before it, up to the second before that slot), in one transaction:
// slots before the cut lose the runs that settled them (failed ones too),
// so the missed-slot rule must never take a pruned slot for a missed one.
// It leaves those of the tasks left whole (req.Leave), and of those of
// req.Of it refuses (returned, by name), their rows locked and read first
// (in name order), so that no forget commits between the read and the
// write.
func (p *Ledger) pruneWatermarks(ctx context.Context, req store.PruneRequest) (map[string]error, error) {
	tx, err := p.begin(ctx)
	if err != nil {
		return nil, p.wrap("prune ledger", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	refused := map[string]error{}
	if checked := backend.PruneChecked(req); len(checked) > 0 {
		rows, err := tx.Query(ctx, `SELECT name, registered_at, retired_at FROM tasks WHERE name = ANY($1::text[])
ORDER BY name FOR UPDATE`, checked)
		if err != nil {
			return nil, p.wrap("read ledger", err)
		}
		type row struct {
			at      time.Time
			retired *time.Time
		}
		found := map[string]row{}
		for rows.Next() {
			var name string
			var r row
			if err := rows.Scan(&name, &r.at, &r.retired); err != nil {
				rows.Close()
				return nil, p.wrap("read ledger", err)
			}
			found[name] = r
		}
		if rows.Close(); rows.Err() != nil {
			return nil, p.wrap("read ledger", rows.Err())
		}
		for _, task := range checked {
			r, ok := found[task]
			if err := backend.PruneRefuses(req, task, ok, r.at, fromDB(r.retired)); err != nil {
				refused[task] = err
			}
		}
	}
	// A task owed a slot before the cut (req.Owed) moves up to the second
	// before that slot, no further.
	if _, err := tx.Exec(ctx, `UPDATE tasks t SET settled_through = u.upto
FROM (SELECT n.name, LEAST($1::timestamptz, COALESCE((SELECT to_timestamp(o.value::bigint) - interval '1 second'
  FROM jsonb_each_text($3::jsonb) o WHERE o.key = n.name), $1::timestamptz)) AS upto FROM tasks n) u
WHERE t.name = u.name AND (t.settled_through IS NULL OR t.settled_through < u.upto)
  AND t.name NOT IN (SELECT jsonb_array_elements_text($2::jsonb))`,
		dbTime(req.Before), backend.PruneLeave(backend.PruneLeaving(req, refused)), backend.PruneOwed(req)); err != nil {
		return nil, p.wrap("prune ledger", err)
	}
	return refused, p.wrap("prune ledger", tx.Commit(ctx))
}

// pruneBatch deletes one batch of task's runs (pruneDeleteSQL's
// arguments) and returns how many runs went and the largest id among
// them: one statement, or, for a task of req.Of, one transaction that
// first locks and reads its row, and leaves a task it refuses (the error
// of backend.PruneRefuses).
func (p *Ledger) pruneBatch(ctx context.Context, req store.PruneRequest, task string, args []any) (int64, int64, error) {
	if _, ok := req.Of[task]; !ok {
		return p.pruneDelete(ctx, p.pool, args)
	}
	tx, err := p.begin(ctx)
	if err != nil {
		return 0, 0, p.wrap("prune ledger", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var at time.Time
	var retired *time.Time
	err = tx.QueryRow(ctx, `SELECT registered_at, retired_at FROM tasks WHERE name = $1 FOR UPDATE`, task).Scan(&at, &retired)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, p.wrap("read ledger", err)
	}
	if err := backend.PruneRefuses(req, task, err == nil, at, fromDB(retired)); err != nil {
		return 0, 0, err
	}
	n, last, err := p.pruneDelete(ctx, tx, args)
	if err != nil {
		return 0, 0, err
	}
	return n, last, p.wrap("prune ledger", tx.Commit(ctx))
}

// pruneDelete runs pruneDeleteSQL with args on q.
func (p *Ledger) pruneDelete(ctx context.Context, q interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}, args []any) (int64, int64, error) {
	rows, err := q.Query(ctx, pruneDeleteSQL(), args...)
	if err != nil {
		return 0, 0, p.wrap("prune ledger", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, 0, p.wrap("prune ledger", err)
	}
	return int64(len(ids)), slices.Max(append(ids, 0)), nil
}
