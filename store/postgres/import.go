package postgres

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ExportRuns returns up to limit runs with an id above afterID, with every
// column including the tails, in ascending id order: page through a ledger
// by passing the last id returned. limit <= 0 means 1000.
func (p *Ledger) ExportRuns(ctx context.Context, afterID int64, limit int) ([]store.Run, error) {
	if limit <= 0 {
		limit = 1000
	}
	return p.scanRuns(ctx, p.pool, (*runRow).destFull, `SELECT `+runColumnsFull+` FROM runs r WHERE r.id > $1 ORDER BY r.id LIMIT $2`, afterID, limit)
}

// Slot holders of imported runs, recomputed as in updateRun.
const (
	lockSlotSQL = `INSERT INTO slots (task, slot) VALUES ($1, $2)
ON CONFLICT (task, slot) DO UPDATE SET task = excluded.task`
	syncSlotSQL = `UPDATE slots s SET
 running_id = (SELECT max(x.id) FROM runs x WHERE x.task = s.task AND x.slot = s.slot AND x.status = 'running'),
 succeeded_id = GREATEST(s.succeeded_id,
  (SELECT max(x.id) FROM runs x WHERE x.task = s.task AND x.slot = s.slot AND x.status = 'succeeded'))
WHERE s.task = $1 AND s.slot = $2`
)

// importConflictSQL makes an import converge: a run imported before from
// the same origin takes the outcome, tails and progress it has now (a run
// copied while running gets its end), and is left alone when unchanged.
const importConflictSQL = ` ON CONFLICT (origin, origin_id) WHERE origin IS NOT NULL DO UPDATE SET
 status = excluded.status, exit_code = excluded.exit_code, signal = excluded.signal, ended_at = excluded.ended_at,
 stdout_tail = excluded.stdout_tail, stderr_tail = excluded.stderr_tail, error = excluded.error,
 progress = excluded.progress, checkpoint = excluded.checkpoint
WHERE (runs.status, runs.exit_code, runs.signal, runs.ended_at, runs.error, runs.progress, runs.checkpoint,
 runs.stdout_tail, runs.stderr_tail) IS DISTINCT FROM (excluded.status, excluded.exit_code, excluded.signal,
 excluded.ended_at, excluded.error, excluded.progress, excluded.checkpoint, excluded.stdout_tail, excluded.stderr_tail)`

// Import copies tasks and runs from another ledger (catchup migrate), in one
// transaction. origin names that ledger; with each run's ID there it makes
// the import idempotent and convergent: a run already imported from origin
// is updated to what it is now (its outcome, tails, progress) and skipped
// when unchanged, so importing the same runs again imports 0. It returns
// how many runs it inserted or updated. Runs get new ids here, in the
// order given (pass them in ascending source id). Tasks are upserted: a
// definition replaces only an older one, and a registration only moves
// back. Imported runs keep their status, running ones included; a slot whose
// imported run succeeded (or runs) is held here as it was there, and a slot
// whose imported run ended since is released or done accordingly.
func (p *Ledger) Import(ctx context.Context, origin string, tasks []store.Task, runs []store.Run) (int, error) {
	if origin == "" {
		return 0, errors.New("import into ledger: empty origin")
	}
	tx, err := p.begin(ctx)
	if err != nil {
		return 0, p.wrap("import into ledger", err)
	}
	defer tx.Rollback(ctx)
	// Rows are locked in a fixed order (tasks by name, then slots by task
	// and slot), the order claims take them in, so that concurrent imports
	// and claims cannot deadlock.
	tasks = append([]store.Task(nil), tasks...)
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].Name < tasks[j].Name })
	for _, t := range tasks {
		if err := upsertTask(ctx, tx, t, true); err != nil {
			return 0, p.wrap("import into ledger", err)
		}
		if err := importLifecycle(ctx, tx, t); err != nil {
			return 0, p.wrap("import into ledger", err)
		}
	}
	type slotKey struct {
		task string
		slot int64
	}
	held := map[slotKey]bool{}
	imported := 0
	copied, err := copiedElsewhere(ctx, tx, origin, runs)
	if err != nil {
		return 0, p.wrap("import into ledger", err)
	}
	b := &pgx.Batch{}
	for i, r := range runs {
		if copied[i] {
			continue // there already, copied from this ledger under another origin
		}
		b.Queue(insertRunSQL+importConflictSQL, insertArgs(0, r, origin)...).Exec(func(tag pgconn.CommandTag) error {
			if tag.RowsAffected() == 1 {
				imported++
				if !r.Slot.IsZero() {
					held[slotKey{r.Task, r.Slot.Unix()}] = true
				}
			}
			return nil
		})
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return 0, p.wrap("import into ledger", err)
	}
	keys := make([]slotKey, 0, len(held))
	for k := range held {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].task != keys[j].task {
			return keys[i].task < keys[j].task
		}
		return keys[i].slot < keys[j].slot
	})
	// The server runs a batch's statements one after the other, each with a
	// snapshot taken when it starts: each sync sees the runs committed by
	// whoever held the slot's row before the lock just above it.
	b = &pgx.Batch{}
	for _, k := range keys {
		slot := time.Unix(k.slot, 0).UTC()
		b.Queue(lockSlotSQL, k.task, slot)
		b.Queue(syncSlotSQL, k.task, slot)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return 0, p.wrap("import into ledger", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, p.wrap("import into ledger", err)
	}
	return imported, nil
}

// ImportPrunedSlots marks slots done whose succeeded run another ledger
// pruned (`catchup migrate`): their holder is the stand-in run id 0, so a
// claim of them is refused as already succeeded. Idempotent.
func (p *Ledger) ImportPrunedSlots(ctx context.Context, slots []store.PrunedSlot) error {
	b := &pgx.Batch{}
	for _, ps := range slots {
		b.Queue(`INSERT INTO slots (task, slot, succeeded_id) VALUES ($1, $2, 0)
ON CONFLICT (task, slot) DO UPDATE SET succeeded_id = COALESCE(slots.succeeded_id, 0)`, ps.Task, dbTime(ps.Slot))
	}
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return p.wrap("write ledger", err)
	}
	return nil
}

// RunsElsewhere reports whether the ledger holds a run of task that another
// host recorded: one of its own hosts', or another host's import; not one
// imported from origin, nor one host recorded here (the migrating host's
// own fires since its switch to this ledger). catchup migrate carries a
// host's retirement or pause of a task onto none such: the task lives on
// there, and its own lifecycle stands.
func (p *Ledger) RunsElsewhere(ctx context.Context, task, origin, host string) (bool, error) {
	var found bool
	err := p.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runs WHERE task = $1 AND origin IS DISTINCT FROM $2 AND host IS DISTINCT FROM $3)`,
		task, dbText(origin), dbText(host)).Scan(&found) // origin and host as stored
	if err != nil {
		return false, p.wrap("read the task's runs", err)
	}
	return found, nil
}
