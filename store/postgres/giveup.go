package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5"
)

// A statement whose context is marked by store.GiveUpWaitsWhen (a stopping
// daemon's writes, made with contexts nothing cancels, so that a stop does
// not cut an outcome) waits for the server at most store.LastChance after
// the mark's context is done, or after it began if later: a server that
// stops answering without closing the connection (frozen, a storage stall,
// a partition whose far side still acknowledges) would otherwise hold the
// daemon's stop until it answered again, past any grace. A server that
// answers is never cut. The statement's context then ends as a deadline
// does, so pgx drops the connection and says "timeout", which wrap marks
// store.ErrLedgerUnreachable: an outcome so cut is noted on the host for
// the next scan, as one refused at connect is. A commit cut in flight may
// have landed; the note's later recording keeps an outcome already there
// (spool_outcome.go). Unmarked statements are left as they are.

// Once a statement was cut, the server is taken for stalled by every later
// statement given up by the same mark (a stopping daemon's other writes):
// they end at once, so that the stop waits store.LastChance once, not once
// for each write left.

// stalls is the marks (their give-up contexts) a statement was cut under.
type stalls struct {
	mu  sync.Mutex
	cut map[context.Context]bool
}

func (s *stalls) add(giveUp context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut == nil {
		s.cut = map[context.Context]bool{}
	}
	s.cut[giveUp] = true
}

func (s *stalls) has(giveUp context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cut[giveUp]
}

// statementCtx is ctx for one statement, and the release of what bounds it,
// to be called once the statement's results are read (release is
// idempotent). For an unmarked ctx it is ctx itself.
func (s *stalls) statementCtx(ctx context.Context) (context.Context, func()) {
	giveUp := store.GiveUpOn(ctx)
	if giveUp == nil {
		return ctx, func() {}
	}
	c := &cutoff{Context: ctx, done: make(chan struct{})}
	if giveUp.Err() != nil && s.has(giveUp) {
		c.end(context.DeadlineExceeded)
		return c, func() {}
	}
	stopParent := context.AfterFunc(ctx, func() { c.end(ctx.Err()) })
	stopGiveUp := context.AfterFunc(giveUp, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.released && c.err == nil {
			c.timer = time.AfterFunc(store.LastChance, func() {
				s.add(giveUp)
				c.end(context.DeadlineExceeded)
			})
		}
	})
	return c, func() {
		stopParent()
		stopGiveUp()
		c.mu.Lock()
		defer c.mu.Unlock()
		c.released = true
		if c.timer != nil {
			c.timer.Stop()
		}
	}
}

// cutoff is a statement's context: its parent's values and deadline, done
// when its parent is, or store.LastChance after the give-up (Err then
// context.DeadlineExceeded).
type cutoff struct {
	context.Context
	done chan struct{}

	mu       sync.Mutex
	err      error
	timer    *time.Timer
	released bool
}

func (c *cutoff) Done() <-chan struct{} { return c.done }

func (c *cutoff) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// end ends the context with err, once.
func (c *cutoff) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
}

// cutRow is a row whose statement's bound is released once it is scanned.
type cutRow struct {
	pgx.Row
	release func()
}

func (r cutRow) Scan(dest ...any) error {
	defer r.release()
	return r.Row.Scan(dest...)
}

// cutRows is rows whose statement's bound is released once they are read
// or closed.
type cutRows struct {
	pgx.Rows
	release func()
}

func (r cutRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.release()
	return false
}

func (r cutRows) Close() {
	r.Rows.Close()
	r.release()
}

// cutBatch is a batch's results, whose bound is released once they are
// closed.
type cutBatch struct {
	pgx.BatchResults
	release func()
}

func (b cutBatch) Close() error {
	defer b.release()
	return b.BatchResults.Close()
}
