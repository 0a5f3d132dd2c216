package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/ledger"
	"github.com/catchup/catchup/store/sqlite"
)

// reopenRetry is how long the daemon waits before it tries again to
// reopen a ledger it could not (the file deleted and not yet back).
const reopenRetry = 5 * time.Second

// reopening is the daemon's SQLite ledger. A write of a sqlite.Ledger
// refuses once the ledger's file, -wal or -shm was deleted or replaced
// since it opened them (store.ErrLedgerMoved, sqlite.ErrIndexReplaced),
// and goes on refusing: a one-shot command ends, and the next one opens
// the ledger anew; the daemon, open for months, does the same itself. Once
// a call is refused so, the ledger is reopened at its path as soon as no
// call on the old one is in flight (SQLite maps one -shm per file and
// process: the old one must be closed before the new one opens), and the
// daemon says so once. The call refused is not made again: its caller dealt
// with it as a one-shot command does (an outcome noted on the host for the
// next scan, a fire that ran nothing left to a replay). The calls of one
// fire or scan (store.Session) reach one file: once the ledger is reopened,
// those of a session begun on the file replaced are refused as writes to
// it are (store.ErrLedgerMoved), since its run ids and plans mean nothing
// in the file now there (an outcome written by its claim's id there landed
// on another run, or on none). A ledger that
// cannot be reopened (deleted, nothing there yet) is tried again every
// reopenRetry; never created anew behind a restore in progress.
type reopening struct {
	open func(context.Context) (store.Store, error)
	path string // the ledger's, as given
	log  *slog.Logger

	mu        sync.Mutex
	cur       store.Store
	gen       uint64    // how many times cur was reopened: the sessions' pin
	curClosed bool      // cur was closed for a reopen that failed
	users     int       // calls in flight on cur
	stale     error     // the refusal that made cur stale; nil: cur is sound
	retryAt   time.Time // after a reopen failed, when to try again
	failSaid  string    // the reopen failure said last
	closed    bool      // Close was called
}

// reopenable returns st as the daemon keeps it: a SQLite ledger reopened
// at path once replaced (reopening); any other st as it is.
func reopenable(st store.Store, path string, log *slog.Logger) store.Store {
	if _, ok := st.(*sqlite.Ledger); !ok {
		return st
	}
	return &reopening{open: reopenAt(path), path: path, log: log, cur: st}
}

// reopenAt returns how reopening opens the ledger at path again: only
// when it is there (a ledger deleted is not created empty in its place).
func reopenAt(path string) func(context.Context) (store.Store, error) {
	return func(ctx context.Context) (store.Store, error) {
		loc, err := store.ParseLocation(path)
		if err != nil {
			return nil, err
		}
		if err := refuseNotAFile(path, dbFlag); err != nil {
			return nil, err
		}
		return ledger.OpenExisting(ctx, loc)
	}
}

// replaced reports whether err is a write refused because the ledger's
// files are no longer those it opened.
func replaced(err error) bool {
	return errors.Is(err, store.ErrLedgerMoved) || errors.Is(err, sqlite.ErrIndexReplaced)
}

// take returns the ledger for a call of ctx, reopened first if it is
// stale and no call is in flight on it; done must follow with the call's
// error. A call of a session pinned to an earlier opening is refused.
func (rl *reopening) take(ctx context.Context) (store.Store, error) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	rl.reopenIdle()
	if rl.curClosed && !rl.closed {
		return nil, rl.gone()
	}
	if !store.SessionOf(ctx).Pin(rl.gen) {
		return nil, fmt.Errorf("%w, and reopened since: this fire or scan began on the file replaced, "+
			"and nothing more of it is written to the file now there", store.ErrLedgerMoved)
	}
	rl.users++
	return rl.cur, nil
}

// done ends a call on st that returned err.
func (rl *reopening) done(st store.Store, err error) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	rl.users--
	if st == rl.cur && rl.stale == nil && replaced(err) {
		rl.stale = err // reopened by the next call, once its caller said what was refused
	}
}

// reopenIdle reopens the ledger when it is stale and no call is in flight
// on it (under mu).
func (rl *reopening) reopenIdle() {
	if rl.stale == nil || rl.users > 0 || rl.closed || time.Now().Before(rl.retryAt) {
		return
	}
	if !rl.curClosed {
		rl.cur.Close() // refusing every write: nothing of it is lost
		rl.curClosed = true
	}
	st, err := rl.open(context.Background())
	if err != nil {
		rl.retryAt = time.Now().Add(reopenRetry)
		if msg := err.Error(); msg != rl.failSaid {
			rl.failSaid = msg
			rl.log.Warn(fmt.Sprintf("cannot reopen the ledger, whose file or index was replaced: %v; trying again every %s",
				err, catchup.FormatDuration(reopenRetry)), "event", "reopen-failed")
		}
		return
	}
	why := rl.stale
	rl.gen++
	rl.cur, rl.curClosed, rl.stale, rl.retryAt, rl.failSaid = st, false, nil, time.Time{}, ""
	rl.log.Warn(fmt.Sprintf("reopened the ledger now at its path, a write having been refused: %v", why), "event", "reopen")
	if msg := store.OpenWarning(st); msg != "" {
		rl.log.Warn(msg, "event", "warning")
	}
}

// LostRecords implements store.LossMarker, as the ledger open now does.
func (rl *reopening) LostRecords() string {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.cur == nil || rl.curClosed {
		return ""
	}
	return store.LostRecords(rl.cur)
}

// LostWindow implements store.LossSpanner, as the ledger open now does.
func (rl *reopening) LostWindow() (store.LostSpan, bool) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.cur == nil || rl.curClosed {
		return store.LostSpan{}, false
	}
	return store.LostWindow(rl.cur)
}

// Shared implements store.Store: a SQLite ledger is never shared.
func (rl *reopening) Shared() bool { return false }

// Close closes the ledger open now.
func (rl *reopening) Close() error {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	rl.closed = true
	if rl.curClosed {
		return nil
	}
	rl.curClosed = true
	return rl.cur.Close()
}

func call(ctx context.Context, rl *reopening, f func(store.Store) error) error {
	st, err := rl.take(ctx)
	if err != nil {
		return err
	}
	err = f(st)
	rl.done(st, err)
	return err
}

func call1[T any](ctx context.Context, rl *reopening, f func(store.Store) (T, error)) (T, error) {
	st, err := rl.take(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := f(st)
	rl.done(st, err)
	return v, err
}

func call2[T, U any](ctx context.Context, rl *reopening, f func(store.Store) (T, U, error)) (T, U, error) {
	st, err := rl.take(ctx)
	if err != nil {
		var zero T
		var zero2 U
		return zero, zero2, err
	}
	v, w, err := f(st)
	rl.done(st, err)
	return v, w, err
}
