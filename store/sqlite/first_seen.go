package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
)

// taskKnownSQL asks whether the ledger holds a task.
const taskKnownSQL = `SELECT 1 FROM tasks WHERE name = ?`

// firstSeenTaskSQL registers a task first seen through a run.
const firstSeenTaskSQL = `INSERT INTO tasks (name, registered_at, updated_at) VALUES (?, ?, ?)
ON CONFLICT (name) DO NOTHING`

// firstSeenTask registers the task of run r, first seen through it, as of
// its slot (or start), so that the slot is covered by the missed rule; a
// task the ledger holds stays as it is. Inside the claim's immediate
// transaction, so a task forgotten since the fire read it is registered
// again. It asks first: a fire nearly always finds its task, and the
// INSERT's compilation (every column's constraint and default) cost a
// one-shot fire more than the read (a sixth of the claim's instructions).
func firstSeenTask(ctx context.Context, tx preparedTx, r store.Run) error {
	var one int
	switch err := tx.QueryRowContext(ctx, taskKnownSQL, r.Task).Scan(&one); {
	case err == nil:
		return nil
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	_, err := tx.ExecContext(ctx, firstSeenTaskSQL, r.Task, ms(backend.FirstSeen(r)), ms(r.StartedAt))
	return err
}
