package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Shared implements store.Store: every host of a fleet uses this ledger.
func (p *Ledger) Shared() bool { return true }

// advisoryLockSQL takes a task's lock, a session-level advisory lock keyed by the
// ledger's schema and the task name, so that ledgers in two schemas of one
// database do not exclude each other.
const advisoryLockSQL = `SELECT k, pg_try_advisory_lock(k)
FROM (SELECT hashtextextended('catchup:' || current_schema() || ':' || $1, 0) AS k) AS key`

// LockTask implements store.Store. The lock lives on a connection of its own, kept
// open until release (which unlocks and closes it); if that connection dies,
// the server drops the lock. ok is false, with a no-op release, when another
// process, on any host, holds the lock.
func (p *Ledger) LockTask(ctx context.Context, task string) (func(), bool, error) {
	conn, err := pgx.ConnectConfig(ctx, p.conn.Copy())
	if err != nil {
		return func() {}, false, p.wrap("lock task "+task+" in ledger", err)
	}
	var key int64
	var ok bool
	if err := conn.QueryRow(ctx, advisoryLockSQL, task).Scan(&key, &ok); err != nil || !ok {
		conn.Close(context.Background())
		return func() {}, false, p.wrap("lock task "+task+" in ledger", err)
	}
	p.mu.Lock()
	p.locks[conn] = key
	p.mu.Unlock()
	var once sync.Once
	release := func() {
		once.Do(func() {
			p.mu.Lock()
			_, open := p.locks[conn]
			delete(p.locks, conn)
			p.mu.Unlock()
			if open { // else Close got there first
				unlockTask(conn, key)
			}
		})
	}
	return release, true, nil
}

// unlockTask releases a task lock and closes its connection. Closing alone
// would drop the lock too, but only once the server has noticed: unlocking
// first frees it before this returns.
func unlockTask(conn *pgx.Conn, key int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, key)
	conn.Close(ctx)
}
