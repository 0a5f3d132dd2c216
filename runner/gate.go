package runner

import "sync"

// A Gate orders the starts of commands with a stop that is not a signal to
// this process (a daemon's: it catches its signals itself). Run, given one
// (Config.Gate), starts its command only while the gate is open, and keeps
// it from closing from its last look at the stop until the command has
// started and OnStart has returned. So once Close has returned, every
// command started through the gate was started, and its OnStart told,
// before Close returned, and none starts after: a caller that closes the
// gate, then says it stops and signals the jobs it was told of, starts no
// job after saying so and misses none. The zero Gate is open.
type Gate struct {
	mu     sync.RWMutex
	closed bool
}

// Close closes g for good, once the starts in progress through it are
// done (their OnStart returned).
func (g *Gate) Close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// enter holds g open until leave is called; ok is false, and g not held,
// when g is closed. A nil Gate is always open.
func (g *Gate) enter() (leave func(), ok bool) {
	if g == nil {
		return func() {}, true
	}
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return nil, false
	}
	return g.mu.RUnlock, true
}
