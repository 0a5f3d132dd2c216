package store

import (
	"context"
	"sync"
)

// A Session marks the calls of one fire or one scan (WithSession) for a
// ledger that a long-lived process reopens once its file was replaced (the
// daemon's SQLite ledger, a backup restored under it). A run id, a plan or
// a record read in one file means nothing in the file put in its place: the
// same id may name another run there, or none. So every call of a session
// must reach the one file its first call reached; a call that would reach
// another is refused with ErrLedgerMoved, as a one-shot command's call on
// a replaced file is, and its caller deals with it in the same way (an
// outcome noted on the host for the next scan, a scan that stops).
// Backends that never reopen ignore sessions.
type Session struct {
	mu  sync.Mutex
	gen uint64
	set bool
}

type sessionKey struct{}

// WithSession returns ctx marked with a new session, or ctx itself when
// it is already marked: a scan's replays are calls of the scan's session.
func WithSession(ctx context.Context) context.Context {
	if SessionOf(ctx) != nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, &Session{})
}

// SessionOf returns ctx's session, nil when it has none.
func SessionOf(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// Pin reports whether a call of session s may reach the opening gen of a
// reopened ledger: the first call pins s to the opening it reaches; every
// later call of s must reach that one. A nil session may reach any.
func (s *Session) Pin(gen uint64) bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.set {
		s.gen, s.set = gen, true
	}
	return s.gen == gen
}
