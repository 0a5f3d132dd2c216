package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
	"github.com/jackc/pgx/v5"
)

// The watermark of a task is written only under its task row's lock, taken
// by a statement of its own before anything is read: under READ COMMITTED
// each later statement of the transaction takes its snapshot once the lock
// is held, so it sees every write of whoever held the lock before. Interrupt
// and SetSettled both take it, tasks before runs before slots (the order
// Claim locks them in), so neither can act on a state the other is changing.
const (
	lockTaskSQL      = `SELECT settled_through FROM tasks WHERE name = $1 FOR UPDATE`
	lockTaskOfRunSQL = `SELECT 1 FROM tasks WHERE name = (SELECT task FROM runs WHERE id = $1) FOR UPDATE`
	setSettledSQL    = `UPDATE tasks SET settled_through = $2
WHERE name = $1 AND (settled_through IS NULL OR settled_through < $2) AND NOT EXISTS (
  SELECT 1 FROM runs r WHERE r.task = $1 AND r.status IN ('running', 'interrupted')
  AND r.slot <= $2 AND (tasks.settled_through IS NULL OR r.slot > tasks.settled_through)
  AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.task = r.task AND o.slot = r.slot AND o.id > r.id
    AND ` + backend.SettledSlotSQL + `))`
	// interruptSQL marks run $1 interrupted if it runs, lowers the
	// watermark of its task below its slot, and counts the runs it marked.
	// The end is never before the start: a scan whose clock is behind the
	// dead run's start (set back, another host's) records it at the start,
	// a duration of 0, never a negative one.
	interruptSQL = `WITH i AS (
  UPDATE runs SET status = 'interrupted', ended_at = GREATEST($2, started_at), error = $3,
   reason = ` + backend.RetryCutSQL + `
  WHERE id = $1 AND status = 'running'
  RETURNING task, slot),
lowered AS (
  UPDATE tasks t SET settled_through = GREATEST(i.slot - interval '1 second', t.pruned_through) FROM i
  WHERE t.name = i.task AND t.settled_through >= i.slot)
SELECT count(*) FROM i`
)

// giveBackSQL records an outcome on run $1 and lowers the watermark of its
// task below its slot; see GiveBack.
const giveBackSQL = `WITH g AS (
  UPDATE runs SET status = $2, exit_code = $3, ended_at = $4, error = $5 WHERE id = $1
  RETURNING task, slot)
UPDATE tasks t SET settled_through = GREATEST(g.slot - interval '1 second', t.pruned_through) FROM g
WHERE t.name = g.task AND t.settled_through >= g.slot`

// GiveBack implements store.Store. One round trip, one implicit
// transaction: the task row's lock, then each run and the watermark.
func (p *Ledger) GiveBack(ctx context.Context, ids []int64, o store.Outcome) error {
	if len(ids) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	b.Queue(lockTaskOfRunSQL, ids[0])
	for _, id := range ids {
		b.Queue(giveBackSQL, id, o.Status, o.ExitCode, dbNullTime(o.EndedAt), dbText(o.Error))
	}
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return p.wrap("write ledger", err)
	}
	return nil
}

// Interrupt implements store.Store. One round trip, one implicit transaction:
// lock the task, mark the run and lower the watermark, then bring the slot
// in step as updateRun does.
func (p *Ledger) Interrupt(ctx context.Context, id int64, at time.Time, reason string) (bool, error) {
	var n int64
	b := &pgx.Batch{}
	b.Queue(lockTaskOfRunSQL, id)
	b.Queue(interruptSQL, id, dbNullTime(at), dbText(reason)).QueryRow(func(row pgx.Row) error { return row.Scan(&n) })
	b.Queue(lockSlotOfRunSQL, id)
	b.Queue(syncSlotOfRunSQL, id)
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return false, p.wrap("write ledger", err)
	}
	return n == 1, nil
}

// SetSettled implements store.Store. One round trip, one implicit transaction:
// the task row's lock, then the check and the write in one statement.
func (p *Ledger) SetSettled(ctx context.Context, task string, through time.Time) error {
	return p.SetSettledOf(ctx, task, store.Of{}, through)
}

// SetSettledOf implements store.Store: as SetSettled, the task row's lock
// (which reads its registration and retirement), then the write, which
// checks them too.
func (p *Ledger) SetSettledOf(ctx context.Context, task string, of store.Of, through time.Time) error {
	found := false
	var refused error // why the row read refuses the write
	b := &pgx.Batch{}
	if of.Registered.IsZero() {
		b.Queue(lockTaskSQL, task).Query(func(rows pgx.Rows) error {
			found = rows.Next()
			return rows.Err()
		})
		b.Queue(setSettledSQL, task, dbNullTime(through))
	} else {
		b.Queue(`SELECT registered_at, retired_at FROM tasks WHERE name = $1 FOR UPDATE`, task).Query(func(rows pgx.Rows) error {
			if found = rows.Next(); found {
				var at time.Time
				var retired *time.Time
				if err := rows.Scan(&at, &retired); err != nil {
					return err
				}
				refused = of.Refuses(at, fromDB(retired))
			}
			return rows.Err()
		})
		q := setSettledSQL + ` AND registered_at <= $3`
		if of.Live {
			q += ` AND retired_at IS NULL`
		}
		b.Queue(q, task, dbNullTime(through), dbTime(of.Registered))
	}
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return p.wrap("write ledger", err)
	}
	switch {
	case refused != nil:
		return fmt.Errorf("task %s: %w", task, refused)
	case !found && !of.Registered.IsZero():
		return fmt.Errorf("task %s: %w", task, store.ErrGone)
	case !found:
		return fmt.Errorf("task %q: %w", task, store.ErrNotFound)
	}
	return nil
}

// SetProgress implements store.Store.
func (p *Ledger) SetProgress(ctx context.Context, id int64, percent int, note string) error {
	if err := backend.CheckPercent(id, percent); err != nil {
		return err
	}
	tag, err := p.pool.Exec(ctx, `UPDATE runs SET progress = $2,
 checkpoint = CASE WHEN $3::text = '' THEN checkpoint ELSE $3::text END
WHERE id = $1 AND status = 'running'`, id, percent, dbText(note))
	if err != nil {
		return p.wrap("write ledger", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("run %d is not running: %w", id, store.ErrNotFound)
	}
	return nil
}

// lastCheckpointSQL reads the checkpoint of the slot's interrupted run
// that started last: by start, not id, since a run catchup migrate copied
// in gets an id after the runs recorded here since it ran (a host's cut
// fire copied after its switch, whose slot a replay here was cut in
// later, resumed from the older checkpoint). The latest start is read as
// a maximum, and the slot's few records through an index, with no sort.
const lastCheckpointSQL = `SELECT checkpoint FROM runs
WHERE task = $1 AND slot = $2 AND status = 'interrupted' AND checkpoint <> ''
 AND started_at = (SELECT MAX(l.started_at) FROM runs l WHERE l.task = $1 AND l.slot = $2 AND l.status = 'interrupted' AND l.checkpoint <> '')
 ORDER BY id DESC LIMIT 1`

// LastCheckpoint implements store.Store.
func (p *Ledger) LastCheckpoint(ctx context.Context, task string, slot time.Time) (string, bool, error) {
	if slot.IsZero() {
		return "", false, nil
	}
	var note string
	err := p.pool.QueryRow(ctx, lastCheckpointSQL, task, dbSlot(slot)).Scan(&note)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, p.wrap("read ledger", err)
	}
	return fromText(note), true, nil
}

// statusCountsSQL reads the (task, status, id) index alone.
const statusCountsSQL = `SELECT task, status, count(*) FROM runs GROUP BY task, status`

// statusCountSQL seeks the (task, status, id) index to one task's runs of
// one status.
const statusCountSQL = `SELECT count(*) FROM runs WHERE task = $1 AND status = $2`

// StatusCount implements store.Store.
func (p *Ledger) StatusCount(ctx context.Context, task, status string) (int64, error) {
	var n int64
	err := p.pool.QueryRow(ctx, statusCountSQL, task, status).Scan(&n)
	return n, p.wrap("read ledger", err)
}

// StatusCounts implements store.Store.
func (p *Ledger) StatusCounts(ctx context.Context) (map[string]map[string]int64, error) {
	rows, err := p.pool.Query(ctx, statusCountsSQL)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	out, err := backend.CollectCounts(rows)
	return out, p.wrap("read ledger", err)
}
