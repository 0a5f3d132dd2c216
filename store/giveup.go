package store

import (
	"context"
	"errors"
	"time"
)

// ErrGaveUp is the error of a write that gave up waiting for the ledger
// (GiveUpWaitsWhen): another process kept it locked, and nothing was
// written. What it would have recorded is found again where it always is:
// a slot it would have settled is missed until the next scan settles it,
// a run it would have ended is still running until a scan reaps it.
var ErrGaveUp = errors.New("gave up waiting for the ledger, which another process kept locked: nothing was written")

// LastChance is how long a write made after GiveUpWaitsWhen's giveUp is
// done, or waiting when it becomes done, still waits for the ledger's lock
// before it gives up: a write that finds the ledger free is made, also
// after a stop.
const LastChance = time.Second

type giveUpKey struct{}

// GiveUpWaitsWhen returns ctx marked so that a write made with it, or
// with any context derived from it (context.WithoutCancel included: the
// mark is a value), gives up waiting for a lock another process holds on
// the ledger LastChance after giveUp is done (or after it began, if
// later), returning an error wrapping ErrGaveUp: a stopping daemon does
// not outlive its grace waiting for the busy timeout (30s for SQLite). It
// gives up only while it waits: a write that has taken the lock is never
// cut, whatever ctx or giveUp. Without the mark a write waits out the
// busy timeout, whatever ctx (see the backends). A PostgreSQL ledger
// waits for its server's answer to such a write at most LastChance after
// giveUp is done (or after it began, if later): a server that stopped
// answering, where SQLite waits for a lock.
func GiveUpWaitsWhen(ctx, giveUp context.Context) context.Context {
	return context.WithValue(ctx, giveUpKey{}, giveUp)
}

// GiveUpOn returns the context GiveUpWaitsWhen marked ctx with; nil for
// none.
func GiveUpOn(ctx context.Context) context.Context {
	g, _ := ctx.Value(giveUpKey{}).(context.Context)
	return g
}
