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
// of their runs goes). cut holds, for each task, the id of its newest run that is kept
// (with n added, n places nearer; none when the added ones are all it
// keeps), found through the (task, id) index: only runs below it go, and a
// task with no more runs than that keeps them all (NULL bound). The kept
// runs are counted as Tasks finds the latest: the records of duplicate
// fires are not among them (those newer than the cut stay).
const pruneWith = `WITH adding AS (SELECT key AS task, value::int AS n FROM jsonb_each_text($3::jsonb)),
cut AS (
  SELECT k.task, CASE WHEN coalesce(a.n, 0) > $1::int THEN 9223372036854775807
    ELSE (SELECT x.id FROM runs x WHERE x.task = k.task AND ` + backend.NotADuplicateSQL + `
      ORDER BY x.id DESC LIMIT 1 OFFSET $1::int - coalesce(a.n, 0)) END AS below
  FROM (SELECT DISTINCT task FROM runs WHERE task NOT IN (SELECT jsonb_array_elements_text($4::jsonb))) k
  LEFT JOIN adding a ON a.task = k.task),
doomed AS (
  SELECT r.id FROM cut JOIN runs r ON r.task = cut.task AND r.id < cut.below
  WHERE r.status <> 'running' AND r.ended_at < $2)
`

const (
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
	args := []any{backend.PruneOffset(req), dbTime(req.Before), backend.PruneAdding(req), backend.PruneLeave(req)}
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
