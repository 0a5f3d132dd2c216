// Command ledgerfloor is the second floor of scripts/bench.sh: what any Go
// wrapper of a cron job pays to keep a durable ledger with the design's
// SQLite (modernc.org/sqlite), and nothing else. It takes flock(2) on
// LEDGER.lock without waiting (exit 75 when held), opens LEDGER as catchup
// does (WAL, synchronous=FULL with commits synced by fdatasync(2), a busy
// timeout; the schema checked by user_version, created once), commits a claim (one
// INSERT), starts COMMAND with the lock's descriptor handed down, waits for
// it, commits its outcome (one UPDATE) and exits with its status. The WAL
// is left in place at exit (no checkpoint on close), as catchup leaves it.
// Built with the release flags, it shows how close to flock(1) a program
// with the design's ledger can get: catchup's own cost is what it adds to
// this row.
//
//	ledgerfloor LEDGER COMMAND [ARG...]
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	driver "modernc.org/sqlite"

	"github.com/catchup/catchup/scripts/bench/internal/spawn"
)

const schema = `CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	task TEXT NOT NULL,
	slot INTEGER NOT NULL,
	status TEXT NOT NULL,
	exit_code INTEGER,
	started_at INTEGER NOT NULL,
	ended_at INTEGER
);
CREATE INDEX runs_task_slot ON runs(task, slot);
PRAGMA user_version = 1;`

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ledgerfloor LEDGER COMMAND [ARG...]")
		return 2
	}
	lock, err := os.OpenFile(args[0]+".lock", os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ledgerfloor:", err)
		return 125
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return 75
		}
		fmt.Fprintln(os.Stderr, "ledgerfloor:", err)
		return 125
	}
	driver.Fdatasync(true) // as catchup's ledger syncs (store/sqlite/fdatasync.go)
	db, err := sql.Open("sqlite", "file:"+args[0]+
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		fmt.Fprintln(os.Stderr, "ledgerfloor:", err)
		return 125
	}
	// Not closed: closing the last connection would checkpoint the WAL.
	ctx := context.Background()
	id, err := claim(ctx, db)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ledgerfloor:", err)
		return 125
	}
	code := spawn.Run(args[1:], lock)
	if _, err := db.ExecContext(ctx, `UPDATE runs SET status = 'finished', exit_code = ?, ended_at = ? WHERE id = ?`,
		code, time.Now().Unix(), id); err != nil {
		fmt.Fprintln(os.Stderr, "ledgerfloor:", err)
	}
	return code
}

// claim checks the schema (creating it in a new ledger) and commits a run.
func claim(ctx context.Context, db *sql.DB) (int64, error) {
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return 0, err
	}
	if version == 0 {
		if _, err := db.ExecContext(ctx, schema); err != nil {
			return 0, err
		}
	}
	now := time.Now().Unix()
	res, err := db.ExecContext(ctx, `INSERT INTO runs (task, slot, status, started_at) VALUES ('t', ?, 'running', ?)`, now, now)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}
