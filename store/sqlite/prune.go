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
// task -> n, newer than every run; "{}" for a real prune), ?4 the tasks
// left whole, ?5 those of the added records that LatestRan counts
// (backend.PruneAddingRan). Keep is counted twice (backend.PruneKeptSQL):
// below is, for each task, the id of the oldest run kept among the records
// Tasks takes for the latest (not a duplicate fire's), ran_below among
// those LatestRan takes (not paused either). A record goes only when below
// the cut of each count it is in: paused records never push out a run ls
// shows once the pause is over. A NULL cut (fewer runs than kept) keeps
// every record of that count.
var pruneWith = `WITH adding(task, n) AS (SELECT key, value FROM json_each(?3)),
adding_ran(task, n) AS (SELECT key, value FROM json_each(?5)),
cut AS (
  SELECT k.task, ` + pruneCutSQL("a", backend.NotADuplicateSQL) + ` AS below,
    ` + pruneCutSQL("ar", backend.RanSQL) + ` AS ran_below
  FROM (SELECT DISTINCT task FROM runs WHERE task NOT IN (SELECT value FROM json_each(?4))) k
  LEFT JOIN adding a ON a.task = k.task LEFT JOIN adding_ran ar ON ar.task = k.task),
doomed AS (
  SELECT r.id, r.task, r.slot, r.status FROM cut JOIN runs r ON r.task = cut.task AND r.id < cut.below
  WHERE r.status <> 'running' AND r.ended_at > 0 AND r.ended_at < ?2
    AND (r.id < cut.ran_below OR NOT (` + backend.RanSQL + `)))
`

// pruneCutSQL is the id of the ?1-th newest run of task k.task among the
// runs where counted holds, found through the (task, id) index; with n
// added (column n of the joined adding table a), the (?1-n)-th, among the
// ?1+1 newest, or none (the largest id) when the added ones are all it keeps.
func pruneCutSQL(a, counted string) string {
	return `CASE
    WHEN ` + a + `.n IS NULL THEN (SELECT x.id FROM runs x WHERE x.task = k.task AND ` + counted + `
      ORDER BY x.id DESC LIMIT 1 OFFSET ?1)
    WHEN ` + a + `.n > ?1 THEN 9223372036854775807
    ELSE (SELECT w.id FROM (SELECT x.id, row_number() OVER (ORDER BY x.id DESC) AS rn FROM runs x
      WHERE x.task = k.task AND ` + counted + ` ORDER BY x.id DESC LIMIT ?1 + 1) w
      WHERE w.rn = ?1 + 1 - ` + a + `.n) END`
}

var (
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
	args := []any{backend.PruneOffset(req), ms(req.Before), backend.PruneAdding(req), backend.PruneLeave(req),
		backend.PruneAddingRan(req)}
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
