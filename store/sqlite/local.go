package sqlite

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// Shared implements store.Store: a SQLite ledger belongs to one host.
func (s *Ledger) Shared() bool { return false }

// Connections implements store.Connections: one (SetMaxOpenConns(1)).
func (s *Ledger) Connections() int { return 1 }

// LockTask implements store.Store. One host's runs are serialised by the task's
// flock, so the ledger adds nothing.
func (s *Ledger) LockTask(ctx context.Context, l store.TaskLock) (func(), bool, error) {
	ctx = uncancelled(ctx)
	return func() {}, true, nil
}

// Heartbeat implements store.Store. On one host liveness is read from the task's
// flock and the boot id, so no heartbeat is written (it would cost a write
// every few seconds for nothing).
func (s *Ledger) Heartbeat(ctx context.Context, id int64, at time.Time) error { return nil }
