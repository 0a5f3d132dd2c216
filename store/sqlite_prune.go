package store

import (
	"context"
	"fmt"
)

// sqlitePruneWith names the runs Prune deletes, as the CTE doomed. ?1 is
// the number of newest runs kept per task minus one, ?2 the bound (unix
// ms). cut holds, for each task, the id of its newest run that is kept (the
// ?1-th newest, found through the (task, id) index): only runs below it go,
// and a task with no more runs than that keeps them all (NULL bound).
const sqlitePruneWith = `WITH cut AS (
  SELECT k.task, (SELECT x.id FROM runs x WHERE x.task = k.task ORDER BY x.id DESC LIMIT 1 OFFSET ?1) AS below
  FROM (SELECT DISTINCT task FROM runs) k),
doomed AS (
  SELECT r.id, r.task, r.slot, r.status FROM cut JOIN runs r ON r.task = cut.task AND r.id < cut.below
  WHERE r.status <> 'running' AND r.ended_at > 0 AND r.ended_at < ?2)
`

const (
	sqlitePruneCountSQL = sqlitePruneWith + `SELECT count(*) FROM doomed`
	// A slot whose succeeded run goes stays done, through pruned_slots.
	sqlitePruneKeepSlotsSQL = sqlitePruneWith + `INSERT INTO pruned_slots (task, slot, run_id)
SELECT task, slot, max(id) FROM doomed WHERE status = 'succeeded' AND slot IS NOT NULL GROUP BY task, slot
ON CONFLICT (task, slot) DO UPDATE SET run_id = max(run_id, excluded.run_id)`
	sqlitePruneDeleteSQL = sqlitePruneWith + `DELETE FROM runs WHERE id IN (SELECT id FROM doomed)`
)

// pruneKeep is the OFFSET of the newest kept run of a task.
func pruneKeep(req PruneRequest) int {
	return max(req.Keep, 1) - 1
}

// Prune implements Store. The runs go in one immediate transaction; then
// the WAL is checkpointed and the file rewritten (VACUUM, which needs no
// transaction open), so that the space goes back to the file system.
func (s *SQLite) Prune(ctx context.Context, req PruneRequest) (PruneResult, error) {
	if req.Before.IsZero() {
		return PruneResult{}, nil
	}
	args := []any{pruneKeep(req), ms(req.Before)}
	if req.DryRun {
		var res PruneResult
		err := s.db.QueryRowContext(ctx, sqlitePruneCountSQL, args...).Scan(&res.Runs)
		return res, s.wrap("read ledger", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return PruneResult{}, s.wrap("prune ledger", err)
	}
	defer tx.Rollback()
	// Slots before the cut lose the runs that settled them (failed ones
	// too): move every watermark up to the cut, so that the missed-slot
	// rule never takes a pruned slot for a missed one.
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET settled_through = ? WHERE settled_through < ?`,
		ms(req.Before), ms(req.Before)); err != nil {
		return PruneResult{}, s.wrap("prune ledger", err)
	}
	if _, err := tx.ExecContext(ctx, sqlitePruneKeepSlotsSQL, args...); err != nil {
		return PruneResult{}, s.wrap("prune ledger", err)
	}
	del, err := tx.ExecContext(ctx, sqlitePruneDeleteSQL, args...)
	if err != nil {
		return PruneResult{}, s.wrap("prune ledger", err)
	}
	n, err := del.RowsAffected()
	if err != nil {
		return PruneResult{}, s.wrap("prune ledger", err)
	}
	if err := tx.Commit(); err != nil {
		return PruneResult{}, s.wrap("prune ledger", err)
	}
	res := PruneResult{Runs: n}
	if n == 0 {
		return res, nil
	}
	return res, s.reclaim(ctx)
}

// reclaim gives the free pages of the ledger back to the file system. The
// VACUUM goes through the WAL, so a second checkpoint truncates the file
// (and the WAL) to the new size.
func (s *SQLite) reclaim(ctx context.Context) error {
	for _, q := range []string{`PRAGMA wal_checkpoint(TRUNCATE)`, `VACUUM`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return s.wrap(fmt.Sprintf("reclaim space (%s) in", q), err)
		}
	}
	return nil
}
