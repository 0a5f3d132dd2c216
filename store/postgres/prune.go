package postgres

import (
	"context"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

// pruneWith names the runs Prune deletes, as the CTE doomed. $1 is the
// OFFSET of the newest kept run of a task (backend.PruneOffset), $2 the
// bound, $3 the records a dry run counts as added first
// (backend.PruneAdding: task -> n, newer than every run; "{}" for a real
// prune), $4 the tasks left whole (backend.PruneLeave: a JSON array; none
// of their runs goes), $5 those of the added records LatestRan counts
// (backend.PruneAddingRan). Keep is counted twice (pruneCutSQL): below is,
// for each task, the id of the oldest run kept among the records Tasks
// takes for the latest (not a duplicate fire's), ran_below among those
// LatestRan takes (not paused either). A record goes only when below the
// cut of each count it is in: paused records never push out a run ls shows
// once the pause is over. A NULL cut (fewer runs than kept) keeps every
// record of that count.
var pruneWith = `WITH adding AS (SELECT key AS task, value::int AS n FROM jsonb_each_text($3::jsonb)),
adding_ran AS (SELECT key AS task, value::int AS n FROM jsonb_each_text($5::jsonb)),
cut AS (
  SELECT k.task, ` + pruneCutSQL("a", backend.NotADuplicateSQL) + ` AS below,
    ` + pruneCutSQL("ar", backend.RanSQL) + ` AS ran_below
  FROM (SELECT DISTINCT task FROM runs WHERE task NOT IN (SELECT jsonb_array_elements_text($4::jsonb))) k
  LEFT JOIN adding a ON a.task = k.task LEFT JOIN adding_ran ar ON ar.task = k.task),
doomed AS (
  SELECT r.id FROM cut JOIN runs r ON r.task = cut.task AND r.id < cut.below
  WHERE r.status <> 'running' AND r.ended_at < $2
    AND (r.id < cut.ran_below OR NOT (` + backend.RanSQL + `)))
`

// pruneCutSQL is the id of the newest kept run of task k.task among the
// runs where counted holds, found through the (task, id) index: with n
// added (column n of the joined adding table a), n places nearer; none
// (the largest id) when the added ones are all it keeps.
func pruneCutSQL(a, counted string) string {
	return `CASE WHEN coalesce(` + a + `.n, 0) > $1::int THEN 9223372036854775807
    ELSE (SELECT x.id FROM runs x WHERE x.task = k.task AND ` + counted + `
      ORDER BY x.id DESC LIMIT 1 OFFSET $1::int - coalesce(` + a + `.n, 0)) END`
}

var (
	pruneCountSQL = pruneWith + `SELECT count(*) FROM doomed`
	// The conditions are checked again on the row deleted: a run changed
	// since the statement's snapshot is judged as it is now.
	pruneDeleteSQL = pruneWith + `DELETE FROM runs d USING doomed
WHERE d.id = doomed.id AND d.status <> 'running' AND d.ended_at < $2`
)

// Prune implements store.Store. One statement. The slots table needs nothing: the
// succeeded_id of a slot whose succeeded run goes keeps the run's id (the
// sync statements never lower it), so the slot stays done. Space is left to
// autovacuum.
func (p *Ledger) Prune(ctx context.Context, req store.PruneRequest) (store.PruneResult, error) {
	if req.Before.IsZero() {
		return store.PruneResult{}, nil
	}
	args := []any{backend.PruneOffset(req), dbTime(req.Before), backend.PruneAdding(req), backend.PruneLeave(req),
		backend.PruneAddingRan(req)}
	if req.DryRun {
		var res store.PruneResult
		err := p.pool.QueryRow(ctx, pruneCountSQL, args...).Scan(&res.Runs)
		return res, p.wrap("read ledger", err)
	}
	// Slots before the cut lose the runs that settled them (failed ones
	// too): move every watermark up to the cut first, so that the
	// missed-slot rule never takes a pruned slot for a missed one; but not
	// those of the tasks left whole (req.Leave).
	if _, err := p.pool.Exec(ctx, `UPDATE tasks SET settled_through = $1
WHERE (settled_through IS NULL OR settled_through < $1)
  AND name NOT IN (SELECT jsonb_array_elements_text($2::jsonb))`, dbTime(req.Before), backend.PruneLeave(req)); err != nil {
		return store.PruneResult{}, p.wrap("prune ledger", err)
	}
	tag, err := p.pool.Exec(ctx, pruneDeleteSQL, args...)
	if err != nil {
		return store.PruneResult{}, p.wrap("prune ledger", err)
	}
	return store.PruneResult{Runs: tag.RowsAffected()}, nil
}
