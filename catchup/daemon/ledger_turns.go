package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
)

// ledgerTurns is the daemon's ledger: its calls take turns for the
// ledger's connections (store.ConnectionsOf: SQLite's one, PostgreSQL's
// pool) here, in the order they asked, but for an outcome's commit
// (Finish, or a claim that carries one), which goes ahead of every call
// still waiting: it waits only for the calls that hold the ledger as it
// asks. A job that ended is `running` in the ledger until its outcome
// commits, and a power cut then runs its slot again at the next start:
// in a busy daemon (many lines replaying at its start, or firing on one
// minute) the outcome queued behind the other tasks' claims, boot
// sightings and reads, and that moment grew from a few milliseconds to
// hundreds (SQLite gives its connection to a waiter at random, so that
// some outcomes waited for nearly the whole queue).
//
// A call whose context ends, or whose give-up mark's context ends
// (store.GiveUpWaitsWhen: a stopping daemon's writes), while it waits
// here goes to the ledger without a turn, as it would without this
// queue: what it does then (SQLite waits for its connection, ignoring the
// cancellation; a write gives up store.LastChance later) is the ledger's.
// Close, Shared and the ledger's optional interfaces take no turn.
type ledgerTurns struct {
	st     store.Store
	mu     sync.Mutex
	free   int     // connections no call holds
	first  []*turn // outcomes waiting, oldest first
	others []*turn // every other call waiting, oldest first
}

var _ store.Store = (*ledgerTurns)(nil)

// turn is one call's wait: ready is closed once it was given a
// connection (given, under mu).
type turn struct {
	ready chan struct{}
	given bool
}

// LedgerTurns returns st as the daemon uses it (ledgerTurns); st itself
// when it is one already.
func LedgerTurns(st store.Store) store.Store {
	if _, ok := st.(*ledgerTurns); ok || st == nil {
		return st
	}
	return &ledgerTurns{st: st, free: store.ConnectionsOf(st)}
}

// take waits for a connection's turn (an outcome's, if outcome) and
// returns its release, to be called once the call returned.
func (l *ledgerTurns) take(ctx context.Context, outcome bool) (release func()) {
	l.mu.Lock()
	if l.free > 0 && (outcome || len(l.first)+len(l.others) == 0) {
		l.free--
		l.mu.Unlock()
		return l.give
	}
	w := &turn{ready: make(chan struct{})}
	if outcome {
		l.first = append(l.first, w)
	} else {
		l.others = append(l.others, w)
	}
	l.mu.Unlock()
	var gaveUp <-chan struct{}
	if g := store.GiveUpOn(ctx); g != nil {
		gaveUp = g.Done()
	}
	select {
	case <-w.ready:
		return l.give
	case <-ctx.Done():
	case <-gaveUp:
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.given { // given as it stopped waiting
		return l.give
	}
	l.first, l.others = without(l.first, w), without(l.others, w)
	return func() {} // to the ledger without a turn
}

// give gives a connection back: to the oldest outcome waiting, else to
// the oldest other call.
func (l *ledgerTurns) give() {
	l.mu.Lock()
	defer l.mu.Unlock()
	var next *turn
	switch {
	case len(l.first) > 0:
		next, l.first = l.first[0], l.first[1:]
	case len(l.others) > 0:
		next, l.others = l.others[0], l.others[1:]
	default:
		l.free++
		return
	}
	next.given = true
	close(next.ready)
}

// outcomesWaiting is how many outcomes wait for their turn.
func (l *ledgerTurns) outcomesWaiting() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.first)
}

func without(ts []*turn, w *turn) []*turn {
	for i, t := range ts {
		if t == w {
			return append(ts[:i:i], ts[i+1:]...)
		}
	}
	return ts
}

// inTurn runs f, a call of the ledger, in its turn.
func inTurn(ctx context.Context, l *ledgerTurns, outcome bool, f func() error) error {
	defer l.take(ctx, outcome)()
	return f()
}

func inTurn1[T any](ctx context.Context, l *ledgerTurns, f func() (T, error)) (T, error) {
	defer l.take(ctx, false)()
	return f()
}

func inTurn2[T, U any](ctx context.Context, l *ledgerTurns, f func() (T, U, error)) (T, U, error) {
	defer l.take(ctx, false)()
	return f()
}

// Finish implements store.Store: an outcome, first.
func (l *ledgerTurns) Finish(ctx context.Context, id int64, o store.Outcome) error {
	return inTurn(ctx, l, true, func() error { return l.st.Finish(ctx, id, o) })
}

// Claim implements store.Store: a claim that records the outcome of the
// run before it (a retry's, of its failed attempt; a replay's, of the
// replay before it) goes first, as that outcome's commit.
func (l *ledgerTurns) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	defer l.take(ctx, req.Settle != nil)()
	return l.st.Claim(ctx, req)
}

// Shared implements store.Store.
func (l *ledgerTurns) Shared() bool { return l.st.Shared() }

// Close implements store.Store.
func (l *ledgerTurns) Close() error { return l.st.Close() }

// ServerNow implements store.ServerClock, as the ledger does.
func (l *ledgerTurns) ServerNow() (time.Time, bool) { return store.ServerNow(l.st) }

// OpenWarning implements store.OpenWarner, as the ledger does.
func (l *ledgerTurns) OpenWarning() string { return store.OpenWarning(l.st) }

// LostRecords implements store.LossMarker, as the ledger does.
func (l *ledgerTurns) LostRecords() string { return store.LostRecords(l.st) }

// LostWindow implements store.LossSpanner, as the ledger does.
func (l *ledgerTurns) LostWindow() (store.LostSpan, bool) { return store.LostWindow(l.st) }
