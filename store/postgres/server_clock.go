package postgres

import (
	"sync"
	"time"
)

// serverClock is the server's clock as last read: its clock_timestamp(),
// selected beside what a statement the ledger makes anyway returns (the
// open's first, each claim's insert), so that reading it costs no round
// trip. Hosts judge each other's heartbeats by their own clocks; the
// domain compares this one with the host's (catchup.ClockWatch).
type serverClock struct {
	mu sync.Mutex
	at time.Time // the server's clock, as read
	// read is when its answer came, by this process's clock: only its
	// monotonic reading is used, to carry at forward (time.Since), never
	// its wall time, which is the host's clock to judge.
	read time.Time
}

// saw notes the server's clock at as read just now.
func (c *serverClock) saw(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at, c.read = at, time.Now()
}

// ServerNow implements store.ServerClock: the server's clock now, as
// read last and carried forward; under the answer's way back (a few ms)
// behind it.
func (p *Ledger) ServerNow() (time.Time, bool) {
	c := &p.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		return time.Time{}, false
	}
	return c.at.Add(time.Since(c.read)), true
}
