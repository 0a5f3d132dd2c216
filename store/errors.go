package store

import "errors"

// Errors callers can test for with errors.Is.
var (
	ErrNotFound     = errors.New("not found")
	ErrSchemaTooNew = errors.New("ledger schema is newer than this catchup")
	// ErrNoBackup: a shared ledger is backed up by its server's tools.
	ErrNoBackup = errors.New("catchup backs up SQLite ledgers only: back up a PostgreSQL ledger with pg_dump")
	// ErrNoLedger: a command that only reads found no ledger to read.
	ErrNoLedger = errors.New("no ledger")
	// ErrLedgerMoved: a write found the ledger's path leading to another
	// file than the one opened (deleted, or replaced by a restore).
	ErrLedgerMoved = errors.New("the ledger file was deleted or replaced since catchup opened it")
	// ErrNotRunning: a heartbeat found its run no longer running (another
	// host took it for dead and marked it interrupted): its lease is lost.
	ErrNotRunning = errors.New("no longer running")
	// ErrGone: a write of a task as its caller read it (Store.AddRunsOf)
	// found the task no longer in the ledger, or registered again since
	// (`catchup forget --purge`, then a fire): it wrote nothing.
	ErrGone = errors.New("task no longer in the ledger as read (catchup forget --purge since)")
	// ErrRetired: a write of a task in use as its caller read it
	// (Store.AddRunsOf, SetSettledOf given Of.Live) found the task retired
	// since (`catchup forget`): it wrote nothing.
	ErrRetired = errors.New("task retired since read (catchup forget since)")
	// ErrRunInProgress: a purge (Forget with purge) found, in its own
	// transaction, a run of the task still running: it deleted nothing.
	// Its text follows the task's name ("task T has a run in progress").
	ErrRunInProgress = errors.New("has a run in progress")

	// ErrLedgerUnreachable marks an error of a shared ledger whose server
	// could not be reached, or whose connection was lost: the call may or
	// may not have taken effect. Finish, Interrupt, Heartbeat, UpsertTask
	// and an import are safe to repeat once the server is back. A repeated
	// Claim may find the slot held by the very run the lost attempt
	// inserted (same Host, PID, BootID and StartedAt); a repeated AddRun
	// may record a skip twice.
	ErrLedgerUnreachable = errors.New("ledger unreachable")
	// ErrLedgerLocked marks an error of a shared ledger that answered,
	// but whose statement gave up waiting for a row another session held
	// (its lock timeout): an operator's psql left in a transaction on the
	// task's row, say. Not ErrLedgerUnreachable: the ledger was reachable.
	// Safe to repeat: the statement's transaction took no effect.
	ErrLedgerLocked = errors.New("a row held by another session past the lock timeout")
	// ErrLedgerCancelled marks an error of a shared ledger that answered,
	// but cancelled the statement for a cause that passes: a statement
	// timeout (the server's, its role's or its database's), a deadlock, a
	// serialization failure, memory or disk short for a moment. Not
	// ErrLedgerUnreachable either: the ledger was reachable. Safe to
	// repeat: the statement's transaction took no effect.
	ErrLedgerCancelled = errors.New("the server cancelled the statement")
)
