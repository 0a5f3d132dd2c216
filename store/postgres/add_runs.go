package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
	"github.com/jackc/pgx/v5"
)

// AddRuns implements store.Store. The inserts go in one batch; a slot that a
// running or succeeded record holds is then brought in step as AddRun does.
// An expired record of a slot recorded expired already, or held by a run
// (running, succeeded), is left out (id 0); so is a paused record of a slot
// recorded paused already; and either of a slot that an earlier record of
// runs records so.
func (p *Ledger) AddRuns(ctx context.Context, runs []store.Run) ([]int64, error) {
	return p.AddRunsOf(ctx, store.Of{}, runs)
}

// AddRunsOf implements store.Store: the task's row is read under the lock
// recordedAlready takes (lockTaskSQL), which holds off a purge (Forget
// deletes the task first) and a retirement until the inserts commit.
func (p *Ledger) AddRunsOf(ctx context.Context, of store.Of, runs []store.Run) ([]int64, error) {
	if len(runs) == 0 {
		return nil, nil
	}
	tx, err := p.begin(ctx)
	if err != nil {
		return nil, p.wrap("write ledger", err)
	}
	defer tx.Rollback(ctx)
	if !of.Registered.IsZero() {
		var at time.Time
		var retired *time.Time
		err := tx.QueryRow(ctx, `SELECT registered_at, retired_at FROM tasks WHERE name = $1 FOR UPDATE`, runs[0].Task).Scan(&at, &retired)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil, fmt.Errorf("task %s: %w", runs[0].Task, store.ErrGone)
		case err != nil:
			return nil, p.wrap("read ledger", err)
		}
		if err := of.Refuses(at, fromDB(retired)); err != nil {
			return nil, fmt.Errorf("task %s: %w", runs[0].Task, err)
		}
	}
	ids := make([]int64, len(runs))
	had, err := p.recordedAlready(ctx, tx, runs)
	if err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	for i, r := range runs {
		if had[i] {
			continue // recorded expired (paused) already (another scan, a prune): id 0
		}
		b.Queue(insertRunSQL+` RETURNING id`, insertArgs(0, r, "")...).QueryRow(func(row pgx.Row) error {
			return row.Scan(&ids[i])
		})
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, p.wrap("write ledger", err)
	}
	for i, r := range runs {
		if had[i] || r.Slot.IsZero() || (r.Status != store.StatusRunning && r.Status != store.StatusSucceeded) {
			continue
		}
		for _, q := range []string{lockSlotOfRunSQL, syncSlotOfRunSQL} {
			if _, err := tx.Exec(ctx, q, ids[i]); err != nil {
				return nil, p.wrap("write ledger", err)
			}
		}
	}
	return ids, p.wrap("write ledger", tx.Commit(ctx))
}

// expiredSlotSQL tells whether a slot is recorded expired already, or a
// run holds it (running or succeeded): see store.Store.AddRuns.
const expiredSlotSQL = `SELECT EXISTS (SELECT 1 FROM runs WHERE task = $1 AND slot = $2
 AND status IN ('expired', 'running', 'succeeded'))`

// pausedSlotSQL tells whether a slot is recorded paused already, by a
// record that settles it (not given back): see store.Store.AddRuns.
const pausedSlotSQL = `SELECT EXISTS (SELECT 1 FROM runs WHERE task = $1 AND slot = $2
 AND status = 'paused' AND COALESCE(reason, '') <> '` + store.ReasonReplayPaused + `')`

// onceSQL is the check that leaves r out when it holds: expiredSlotSQL for
// an expired record, pausedSlotSQL for a paused one (with a slot); "" for
// any other record, always added.
func onceSQL(r store.Run) string {
	switch {
	case r.Slot.IsZero():
		return ""
	case r.Status == store.StatusExpired:
		return expiredSlotSQL
	case r.Status == store.StatusPaused:
		return pausedSlotSQL
	}
	return ""
}

// recordedAlready tells, for each expired or paused record of runs, whether
// its slot is recorded so already (an expired one's also when a run holds
// it), in the ledger or by an earlier record of runs. It first locks the
// rows of their tasks (in name order), so that two callers recording one
// slot at once (a scan, a prune) take turns: the second sees the first's
// record.
func (p *Ledger) recordedAlready(ctx context.Context, tx pgx.Tx, runs []store.Run) ([]bool, error) {
	had := make([]bool, len(runs))
	var tasks []string
	for _, r := range runs {
		if onceSQL(r) != "" && !slices.Contains(tasks, r.Task) {
			tasks = append(tasks, r.Task)
		}
	}
	slices.Sort(tasks)
	for _, t := range tasks {
		if _, err := tx.Exec(ctx, lockTaskSQL, t); err != nil {
			return nil, p.wrap("write ledger", err)
		}
	}
	type record struct {
		task, status string
		slot         int64
	}
	seen := map[record]bool{} // the records of runs to be added
	for i, r := range runs {
		q := onceSQL(r)
		if q == "" {
			continue
		}
		k := record{r.Task, r.Status, r.Slot.Unix()}
		if had[i] = seen[k]; had[i] {
			continue
		}
		if err := tx.QueryRow(ctx, q, r.Task, dbSlot(r.Slot)).Scan(&had[i]); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		seen[k] = !had[i]
	}
	return had, nil
}

// ExpiredCounts implements store.Store.
func (p *Ledger) ExpiredCounts(ctx context.Context) (map[string]map[string]int64, error) {
	rows, err := p.pool.Query(ctx, `SELECT task, reason, count(*) FROM runs WHERE status = 'expired' GROUP BY task, reason`)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	out, err := backend.CollectCounts(rows)
	return out, p.wrap("read ledger", err)
}
