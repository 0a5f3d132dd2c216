package sqlite

import (
	"context"
	"fmt"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

// pruneWith names the runs Prune deletes, as the CTE doomed. ?1 is
// the number of newest runs kept per task minus one, ?2 the bound (unix
// ms), ?3 the records a dry run counts as added first (backend.PruneAdding:
// task -> n, newer than every run; "{}" for a real prune). cut holds, for
// each task, the id of its newest run that is kept (the ?1-th newest, found
// through the (task, id) index; with n added, the (?1-n)-th, among the
// ?1+1 newest, or none when the added ones are all it keeps): only runs
// below it go, and a task with no more runs than that keeps them all (NULL
// bound). The kept runs are counted as Tasks finds the latest: the records
// of duplicate fires are not among them (those newer than the cut stay).
const pruneWith = `WITH adding(task, n) AS (SELECT key, value FROM json_each(?3)),
cut AS (
  SELECT k.task, CASE
    WHEN a.n IS NULL THEN (SELECT x.id FROM runs x WHERE x.task = k.task AND ` + backend.NotADuplicateSQL + `
      ORDER BY x.id DESC LIMIT 1 OFFSET ?1)
    WHEN a.n > ?1 THEN 9223372036854775807
    ELSE (SELECT w.id FROM (SELECT x.id, row_number() OVER (ORDER BY x.id DESC) AS rn FROM runs x
      WHERE x.task = k.task AND ` + backend.NotADuplicateSQL + ` ORDER BY x.id DESC LIMIT ?1 + 1) w
      WHERE w.rn = ?1 + 1 - a.n) END AS below
  FROM (SELECT DISTINCT task FROM runs WHERE task NOT IN (SELECT value FROM json_each(?4))) k
  LEFT JOIN adding a ON a.task = k.task),
doomed AS (
  SELECT r.id, r.task, r.slot, r.status FROM cut JOIN runs r ON r.task = cut.task AND r.id < cut.below
  WHERE r.status <> 'running' AND r.ended_at > 0 AND r.ended_at < ?2)
`

const (
	pruneCountSQL = pruneWith + `SELECT count(*) FROM doomed`
	// A slot whose succeeded run goes stays done, through pruned_slots.
	pruneKeepSlotsSQL = pruneWith + `INSERT INTO pruned_slots (task, slot, run_id)
SELECT task, slot, max(id) FROM doomed WHERE status = 'succeeded' AND slot IS NOT NULL GROUP BY task, slot
ON CONFLICT (task, slot) DO UPDATE SET run_id = max(run_id, excluded.run_id)`
	pruneDeleteSQL = pruneWith + `DELETE FROM runs WHERE id IN (SELECT id FROM doomed)`
)

// Prune implements store.Store. The runs go in one immediate transaction; then
// the WAL is checkpointed and the file rewritten (VACUUM, which needs no
// transaction open), so that the space goes back to the file system.
func (s *Ledger) Prune(ctx context.Context, req store.PruneRequest) (store.PruneResult, error) {
	ctx = uncancelled(ctx)
	if err := s.unmoved(); err != nil {
		return store.PruneResult{}, err
	}
	if req.Before.IsZero() {
		return store.PruneResult{}, nil
	}
	args := []any{backend.PruneOffset(req), ms(req.Before), backend.PruneAdding(req), backend.PruneLeave(req)}
	if req.DryRun {
		var res store.PruneResult
		err := s.db.QueryRowContext(ctx, pruneCountSQL, args...).Scan(&res.Runs)
		return res, s.wrap("read ledger", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return store.PruneResult{}, s.wrap("prune ledger", err)
	}
	defer tx.Rollback()
	// Slots before the cut lose the runs that settled them (failed ones
	// too): move every watermark up to the cut, so that the missed-slot
	// rule never takes a pruned slot for a missed one; but not those of the
	// tasks left whole (req.Leave).
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET settled_through = ?1
WHERE settled_through < ?1 AND name NOT IN (SELECT value FROM json_each(?2))`,
		ms(req.Before), backend.PruneLeave(req)); err != nil {
		return store.PruneResult{}, s.wrap("prune ledger", err)
	}
	if _, err := tx.ExecContext(ctx, pruneKeepSlotsSQL, args...); err != nil {
		return store.PruneResult{}, s.wrap("prune ledger", err)
	}
	del, err := tx.ExecContext(ctx, pruneDeleteSQL, args...)
	if err != nil {
		return store.PruneResult{}, s.wrap("prune ledger", err)
	}
	n, err := del.RowsAffected()
	if err != nil {
		return store.PruneResult{}, s.wrap("prune ledger", err)
	}
	if err := tx.Commit(); err != nil {
		return store.PruneResult{}, s.wrap("prune ledger", err)
	}
	res := store.PruneResult{Runs: n}
	if n == 0 {
		// Nothing deleted now; pages an earlier prune freed and could not
		// give back (its VACUUM failed on a full disk) are given back now.
		var free int64
		if err := s.db.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil || free == 0 {
			return res, nil
		}
	}
	if err := s.reclaim(ctx); err != nil {
		return res, fmt.Errorf("deleted %d runs, but %w; catchup prune gives the space back once there is room", n, err)
	}
	return res, nil
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
	return nil
}
