package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/internal/deepstack"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/ledger"
)

// openLedger opens the ledger, creating it if needed, and describes the
// machine, for a command that writes (scan, migrate's target).
func openLedger(ctx context.Context, g *globals, withBoot bool) (store.Store, catchup.Machine, error) {
	return open(ctx, g, withBoot, ledger.Open)
}

// openExistingLedger is openLedger for a command that reads, or changes
// what is there: a ledger that does not exist is an error, never created,
// so that a probe on a mistyped path fails instead of reporting nothing
// missed.
func openExistingLedger(ctx context.Context, g *globals, withBoot bool) (store.Store, catchup.Machine, error) {
	return open(ctx, g, withBoot, ledger.OpenExisting)
}

// openReadingLedger is openExistingLedger for a command that only reads:
// a SQLite ledger this user cannot write is read as it is (L4).
func openReadingLedger(ctx context.Context, g *globals, withBoot bool) (store.Store, catchup.Machine, error) {
	return open(ctx, g, withBoot, ledger.OpenReader)
}

func open(ctx context.Context, g *globals, withBoot bool,
	openLoc func(context.Context, store.Location) (store.Store, error)) (store.Store, catchup.Machine, error) {
	path, err := ledgerPath(g)
	if err != nil {
		return nil, catchup.Machine{}, failure(err)
	}
	m, err := newMachine(g, path, withBoot)
	if err != nil {
		return nil, m, failure(err)
	}
	loc, err := store.ParseLocation(path)
	if err != nil {
		return nil, m, failure(err)
	}
	if err := refuseNotAFile(path, dbFlag); err != nil {
		return nil, m, failure(err)
	}
	st, err := openLoc(ctx, loc)
	if err != nil {
		return nil, m, failure(openHint(err, path))
	}
	warnOpened(os.Stderr, st)
	return st, m, nil
}

// warnOpened says what the ledger found as it opened that its user must
// hear of (store.OpenWarner): a loss it cannot undo, said once.
func warnOpened(w io.Writer, st store.Store) {
	if msg := store.OpenWarning(st); msg != "" {
		fmt.Fprintf(w, "catchup: warning: %s\n", printable(msg))
	}
}

// openHint adds to the error of opening the ledger at path what to do
// about it, where that is the location the user gave.
func openHint(err error, path string) error {
	if hinted := homeIsRootHint(err, path, os.Geteuid(), os.Getenv); hinted != err {
		return hinted
	}
	switch {
	case errors.Is(err, store.ErrNoLedger):
		return fmt.Errorf("%w (check --db, CATCHUP_DB or CATCHUP_STATE_DIR; the first catchup run or scan creates it)", err)
	case errors.Is(err, store.ErrLedgerIsDir):
		return fmt.Errorf("%w; fix: --db (or CATCHUP_DB) takes the ledger file's path, such as %s",
			err, filepath.Join(path, "catchup.db"))
	}
	return err
}

// refuseSharedLedgerDir refuses, before a scan opens (and so creates) its
// SQLite ledger, a directory that others can write: nothing is left there
// for someone else to find or replace. The ledger file itself is checked
// once open.
func refuseSharedLedgerDir(g *globals) error {
	path, err := ledgerPath(g)
	if err != nil || store.IsPostgres(path) {
		return nil // the open says why, or there is no file
	}
	if err := store.RefuseDirectory(path); err != nil {
		return failure(openHint(err, path)) // what is wrong, not its directory's mode
	}
	if err := refuseNotAFile(path, dbFlag); err != nil {
		return failure(err)
	}
	if err := store.CheckPrivateDir(path, os.Geteuid()); err != nil {
		return failure(fmt.Errorf("refusing to replay: %w", err))
	}
	return nil
}

// warnUnsafeLedger says, for a fire, that scan will refuse to replay from
// its SQLite ledger (others can write it or its directory): the fire still
// runs and is recorded, but its missed slots would wait for a scan that
// never replays them.
func warnUnsafeLedger(w io.Writer, path string, uid int) {
	if store.IsPostgres(path) || !ownedBy(store.RealLedgerPath(path), uid) {
		return // another user's ledger: the fire's write fails, and says why
	}
	if err := store.CheckPrivate(path, uid); errors.Is(err, store.ErrUnsafeLedger) {
		fmt.Fprintf(w, "catchup: warning: %s; scan will refuse to replay its missed slots\n", printable(err.Error()))
	}
}

// ownedBy reports whether the file at path is uid's.
func ownedBy(path string, uid int) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == uid
}

// openLedgerAsync opens the ledger at path in the background; the function
// it returns waits for the outcome.
func openLedgerAsync(ctx context.Context, path string) func() (store.Store, error) {
	type result struct {
		st  store.Store
		err error
	}
	done := make(chan result, 1)
	go func() {
		deepstack.Reserve() // the ledger opens on a new goroutine
		loc, err := store.ParseLocation(path)
		if err != nil {
			done <- result{err: err}
			return
		}
		if err := refuseNotAFile(path, dbFlag); err != nil {
			done <- result{err: err}
			return
		}
		st, err := ledger.Open(ctx, loc)
		if err != nil {
			err = openHint(err, path)
		}
		done <- result{st, err}
	}()
	return func() (store.Store, error) {
		r := <-done
		return r.st, r.err
	}
}
