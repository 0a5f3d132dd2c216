package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// nullRun scans a run whose columns may all be NULL (a LEFT JOIN miss).
type nullRun struct {
	id, slot, attempt, exit, signal, started, ended, pid, progress sql.NullInt64
	task, trigger, status, host, boot, errText, checkpoint, reason sql.NullString
	stdout, stderr                                                 []byte
}

func (n *nullRun) dest() []any {
	return []any{&n.id, &n.task, &n.slot, &n.trigger, &n.status, &n.attempt, &n.exit, &n.signal,
		&n.started, &n.ended, &n.host, &n.pid, &n.boot, &n.errText, &n.progress, &n.checkpoint, &n.reason}
}

func (n *nullRun) destFull() []any { return append(n.dest(), &n.stdout, &n.stderr) }

func (n *nullRun) run() *store.Run {
	if !n.id.Valid {
		return nil
	}
	r := &store.Run{
		ID: n.id.Int64, Task: n.task.String, Trigger: n.trigger.String, Status: n.status.String,
		Attempt: int(n.attempt.Int64), Signal: int(n.signal.Int64), StartedAt: fromMS(n.started.Int64),
		EndedAt: fromMS(n.ended.Int64), Host: n.host.String, PID: int(n.pid.Int64),
		BootID: n.boot.String, Error: n.errText.String, StdoutTail: n.stdout, StderrTail: n.stderr,
		Checkpoint: n.checkpoint.String, Reason: n.reason.String,
	}
	if n.progress.Valid {
		p := int(n.progress.Int64)
		r.Progress = &p
	}
	if n.slot.Valid {
		r.Slot = time.Unix(n.slot.Int64, 0).UTC()
	}
	if n.exit.Valid {
		code := int(n.exit.Int64)
		r.ExitCode = &code
	}
	return r
}

// slotValue is a slot as stored: Unix seconds, NULL for none.
func slotValue(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Unix()
}

// nullInt is an optional integer column: NULL for nil.
func nullInt(v *int) any {
	if v == nil {
		return nil
	}
	return *v
}

// endValue is an end as stored: Unix milliseconds, NULL while running.
func endValue(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// Run implements store.Store.
func (s *Ledger) Run(ctx context.Context, id int64) (store.Run, error) {
	ctx = uncancelled(ctx)
	var n nullRun
	err := s.db.QueryRowContext(ctx, `SELECT `+runColumnsFull+` FROM runs r WHERE r.id = ?`, id).Scan(n.destFull()...)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Run{}, fmt.Errorf("run %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Run{}, s.wrap("read ledger", err)
	}
	return *n.run(), nil
}
