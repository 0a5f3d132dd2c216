package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
)

// begin begins a write transaction: BEGIN IMMEDIATE takes the ledger's
// write lock, waiting up to the busy timeout for another process's. For a
// ctx marked by store.GiveUpWaitsWhen, that wait (and the one for the
// ledger's connection) ends store.LastChance after the mark's context is
// done: the write gives up with nothing written (an error wrapping
// store.ErrGaveUp). Once begun, the transaction runs to its end whatever
// ctx: nothing cuts it.
func (s *Ledger) begin(ctx context.Context) (*sql.Tx, error) {
	ctx = uncancelled(ctx)
	giveUp := store.GiveUpOn(ctx)
	if giveUp == nil {
		return s.db.BeginTx(ctx, nil)
	}
	w := &lockWait{Context: ctx, done: make(chan struct{})}
	var timer *time.Timer
	var mu sync.Mutex
	stop := context.AfterFunc(giveUp, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(store.LastChance, w.giveUp)
	})
	tx, err := s.db.BeginTx(w, nil)
	begun := w.begin()
	if !stop() {
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
	}
	if !begun {
		if err == nil {
			tx.Rollback() // the lock came as the wait gave up: nothing was written in it
		}
		return nil, fmt.Errorf("%w (the wait ended %s after its caller gave up)", store.ErrGaveUp, store.LastChance)
	}
	return tx, err
}

// write runs f, a write of one statement or more, on the ledger: each
// statement on its own for a caller that waits out the busy timeout, in a
// transaction begun by begin for one that may give up waiting
// (store.GiveUpWaitsWhen; such a statement is run unprepared).
func (s *Ledger) write(ctx context.Context, f func(ctx context.Context, e readWriter) error) error {
	ctx = uncancelled(ctx)
	if store.GiveUpOn(ctx) == nil {
		return f(ctx, preparedDB{s})
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f(ctx, preparedTx{s: s, tx: tx}); err != nil {
		return err
	}
	return tx.Commit()
}

// readWriter is what preparedDB and preparedTx share.
type readWriter interface {
	execer
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// lockWait is the context of a BEGIN that may give up waiting for the
// lock: done once it gave up, never once the transaction has begun (the
// context of a transaction, when done, rolls it back).
type lockWait struct {
	context.Context // uncancelled: its values only
	mu              sync.Mutex
	done            chan struct{}
	begun, gaveUp   bool
}

func (w *lockWait) Done() <-chan struct{} { return w.done }

func (w *lockWait) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gaveUp {
		return context.Canceled
	}
	return nil
}

// giveUp ends the wait, unless the transaction has begun.
func (w *lockWait) giveUp() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.begun && !w.gaveUp {
		w.gaveUp = true
		close(w.done)
	}
}

// begin marks the transaction begun; false when the wait gave up first.
func (w *lockWait) begin() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.begun = !w.gaveUp
	return w.begun
}
