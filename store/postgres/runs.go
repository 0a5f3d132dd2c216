package postgres

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

const runColumnsLight = `r.id, r.task, r.slot, r.trigger, r.status, r.attempt, r.exit_code, r.signal,
 r.started_at, r.ended_at, r.host, r.pid, r.boot_id, r.error, r.heartbeat_at, r.progress, r.checkpoint, r.reason`

// runColumnsFull adds the tails, read as hex text (hexBytes): pgx reads a
// result as text in the exec mode (see execMode), and bytea's text is the
// server's bytea_output, which may be escape; encode is hex whatever it is.
const runColumnsFull = runColumnsLight + `, encode(r.stdout_tail, 'hex'), encode(r.stderr_tail, 'hex')`

// hexBytes scans a bytea column read as encode(column, 'hex'): NULL is nil.
type hexBytes []byte

func (b *hexBytes) ScanText(v pgtype.Text) error {
	if !v.Valid {
		*b = nil
		return nil
	}
	d, err := hex.DecodeString(v.String)
	if err != nil {
		return fmt.Errorf("bytea as hex: %w", err)
	}
	*b = d
	return nil
}

// runRow scans a run whose columns may all be NULL (a LEFT JOIN miss).
type runRow struct {
	id                                               *int64
	task, trigger, status, host, boot, e, checkpoint *string
	reason                                           *string
	slot, started, ended, heartbeat                  *time.Time
	attempt, exit, signal, pid, progress             *int
	stdout, stderr                                   hexBytes
}

func (n *runRow) dest() []any {
	return []any{&n.id, &n.task, &n.slot, &n.trigger, &n.status, &n.attempt, &n.exit, &n.signal,
		&n.started, &n.ended, &n.host, &n.pid, &n.boot, &n.e, &n.heartbeat, &n.progress, &n.checkpoint, &n.reason}
}

func (n *runRow) destFull() []any { return append(n.dest(), &n.stdout, &n.stderr) }

func (n *runRow) run() *store.Run {
	if n.id == nil {
		return nil
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	num := func(v *int) int {
		if v == nil {
			return 0
		}
		return *v
	}
	r := &store.Run{ID: *n.id, Task: str(n.task), Slot: fromDB(n.slot), Trigger: str(n.trigger), Status: str(n.status),
		Attempt: num(n.attempt), ExitCode: n.exit, Signal: num(n.signal), StartedAt: fromDB(n.started),
		EndedAt: fromDB(n.ended), Host: fromText(str(n.host)), PID: num(n.pid), BootID: fromText(str(n.boot)),
		StdoutTail: []byte(n.stdout), StderrTail: []byte(n.stderr), Error: fromText(str(n.e)), Heartbeat: fromDB(n.heartbeat),
		Progress: n.progress, Checkpoint: fromText(str(n.checkpoint)), Reason: fromText(str(n.reason))}
	if !r.Slot.IsZero() {
		r.Slot = r.Slot.Truncate(time.Second)
	}
	return r
}

func (p *Ledger) queryRuns(ctx context.Context, q execer, query string, args ...any) ([]store.Run, error) {
	return p.scanRuns(ctx, q, (*runRow).dest, query, args...)
}

// scanRuns runs a query of runs; dest picks the columns (with or without
// the tails) the query selects.
func (p *Ledger) scanRuns(ctx context.Context, q execer, dest func(*runRow) []any, query string, args ...any) ([]store.Run, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, p.wrap("read ledger", err)
	}
	defer rows.Close()
	var out []store.Run
	for rows.Next() {
		var n runRow
		if err := rows.Scan(dest(&n)...); err != nil {
			return nil, p.wrap("read ledger", err)
		}
		out = append(out, *n.run())
	}
	return out, p.wrap("read ledger", rows.Err())
}

// insertRunSQL inserts a run; a NULL id takes the next one of the sequence.
const insertRunSQL = `INSERT INTO runs (id, task, slot, trigger, status, attempt, exit_code, signal, started_at,
 ended_at, host, pid, boot_id, stdout_tail, stderr_tail, error, heartbeat_at, origin, origin_id, progress, checkpoint,
 reason)
VALUES (COALESCE($1, nextval('runs_id_seq')), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
 $20, $21, $22)`

// insertArgs are the arguments of insertRunSQL. id 0 means a new one.
func insertArgs(id int64, r store.Run, origin string) []any {
	if r.Attempt == 0 {
		r.Attempt = 1
	}
	var idArg, originArg, originID any
	if id != 0 {
		idArg = id
	}
	if origin != "" {
		originArg, originID = dbText(origin), r.ID
	}
	return []any{idArg, r.Task, dbSlot(r.Slot), r.Trigger, r.Status, r.Attempt, r.ExitCode, r.Signal,
		dbTime(r.StartedAt), dbNullTime(r.EndedAt), dbText(r.Host), r.PID, dbText(r.BootID), r.StdoutTail, r.StderrTail,
		dbText(r.Error), dbNullTime(r.Heartbeat), originArg, originID, r.Progress, dbText(r.Checkpoint),
		dbText(r.Reason)}
}

// Slot holders are recomputed from the runs after the slot's row is locked:
// the second statement's snapshot is taken once the lock is held, so it sees
// every run committed by whoever held the row before. succeeded_id never
// goes down: succeeded is a final status, and a succeeded run that Prune
// deleted keeps its slot done.
const (
	lockSlotOfRunSQL = `INSERT INTO slots (task, slot) SELECT task, slot FROM runs WHERE id = $1 AND slot IS NOT NULL
ON CONFLICT (task, slot) DO UPDATE SET task = excluded.task`
	syncSlotOfRunSQL = `UPDATE slots s SET
 running_id = (SELECT max(x.id) FROM runs x WHERE x.task = s.task AND x.slot = s.slot AND x.status = 'running'),
 succeeded_id = GREATEST(s.succeeded_id,
  (SELECT max(x.id) FROM runs x WHERE x.task = s.task AND x.slot = s.slot AND x.status = 'succeeded'))
FROM runs r WHERE r.id = $1 AND s.task = r.task AND s.slot = r.slot`
)

// updateRun runs update (which must concern run id alone) and brings the
// run's slot in step, in one round trip and one implicit transaction. It
// returns the number of runs update changed.
func (p *Ledger) updateRun(ctx context.Context, id int64, update string, args ...any) (int64, error) {
	b := &pgx.Batch{}
	b.Queue(update, args...)
	b.Queue(lockSlotOfRunSQL, id)
	b.Queue(syncSlotOfRunSQL, id)
	br := p.pool.SendBatch(ctx, b)
	tag, err := br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, p.wrap("write ledger", err)
	}
	return tag.RowsAffected(), nil
}

// AddRun implements store.Store.
func (p *Ledger) AddRun(ctx context.Context, r store.Run) (int64, error) {
	if onceSQL(r) != "" {
		// A record AddRuns records once (paused, expired) is checked as
		// it checks it, under the task row's lock: a fire's paused record
		// of a slot a scan recorded paused is left out (id 0).
		ids, err := p.AddRuns(ctx, []store.Run{r})
		if err != nil {
			return 0, err
		}
		return ids[0], nil
	}
	tx, err := p.begin(ctx)
	if err != nil {
		return 0, p.wrap("write ledger", err)
	}
	defer tx.Rollback(ctx)
	var id int64
	if err := tx.QueryRow(ctx, insertRunSQL+` RETURNING id`, insertArgs(0, r, "")...).Scan(&id); err != nil {
		return 0, p.wrap("write ledger", err)
	}
	if !r.Slot.IsZero() && (r.Status == store.StatusRunning || r.Status == store.StatusSucceeded) {
		if err := syncSlotOfRun(ctx, tx, id); err != nil {
			return 0, p.wrap("write ledger", err)
		}
	}
	return id, p.wrap("write ledger", tx.Commit(ctx))
}

// Finish implements store.Store. The outcome always lands on run id's own record.
// The slot follows: a late outcome (the run was interrupted and the slot
// replayed meanwhile) leaves the replay holding the slot, since the slot's
// holders are recomputed from every run of the slot.
func (p *Ledger) Finish(ctx context.Context, id int64, o store.Outcome) error {
	_, err := p.updateRun(ctx, id, finishSQL, finishArgs(id, o)...)
	return err
}

// finishSQL records an outcome. Its error keeps an interruption it came
// after (store.Store.Finish): an outcome repeated (a lost reply) finds the
// note there already and keeps it. An end before the start is the start.
const finishSQL = `UPDATE runs SET status = $2, exit_code = $3, signal = $4, ended_at = CASE WHEN $5::timestamptz IS NULL THEN NULL ELSE GREATEST($5::timestamptz, started_at) END,
 stdout_tail = $6, stderr_tail = $7,
 error = CASE
  WHEN status <> 'running' AND strpos(error, '` + store.LateOutcomeNote + `') > 0 THEN error
  WHEN status = 'interrupted' AND COALESCE(error, '') <> '' THEN
   concat_ws('; ', NULLIF($8, ''), '` + store.LateOutcomeNote + `' || error)
  ELSE $8 END,
 reason = CASE WHEN $9 <> '' THEN $9 ELSE ` + backend.RetryStartsSQL + ` END WHERE id = $1`

func finishArgs(id int64, o store.Outcome) []any {
	return []any{id, o.Status, o.ExitCode, o.Signal, dbNullTime(o.EndedAt), o.StdoutTail, o.StderrTail, dbText(o.Error), o.Reason}
}

// settle records run id's outcome in tx, as Finish does.
func settle(ctx context.Context, tx pgx.Tx, id int64, o store.Outcome) error {
	if _, err := tx.Exec(ctx, finishSQL, finishArgs(id, o)...); err != nil {
		return err
	}
	return syncSlotOfRun(ctx, tx, id)
}

// syncSlotOfRun brings run id's slot in step with its runs, in tx.
func syncSlotOfRun(ctx context.Context, tx pgx.Tx, id int64) error {
	for _, q := range []string{lockSlotOfRunSQL, syncSlotOfRunSQL} {
		if _, err := tx.Exec(ctx, q, id); err != nil {
			return err
		}
	}
	return nil
}

// Heartbeat implements store.Store. A run no longer running is left alone
// (store.ErrNotRunning).
// A heartbeat is a short connection: it is closed again, so that a run holds
// no connection between heartbeats.
func (p *Ledger) Heartbeat(ctx context.Context, id int64, at time.Time) error {
	tag, err := p.pool.Exec(ctx, `UPDATE runs SET heartbeat_at = $2 WHERE id = $1 AND status = 'running'`, id, dbTime(at))
	p.pool.Reset()
	if err != nil {
		return p.wrap("write ledger", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("run %d: %w", id, store.ErrNotRunning)
	}
	return nil
}

// Run implements store.Store.
func (p *Ledger) Run(ctx context.Context, id int64) (store.Run, error) {
	var n runRow
	err := p.pool.QueryRow(ctx, `SELECT `+runColumnsFull+` FROM runs r WHERE r.id = $1`, id).Scan(n.destFull()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Run{}, fmt.Errorf("run %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Run{}, p.wrap("read ledger", err)
	}
	return *n.run(), nil
}
