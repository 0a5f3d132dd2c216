package postgres

import "time"

// letGoAfter is how long a connection may stay open once a run's command is
// about to start (after its claim and lock, or a retry's start). A command
// that ends sooner has its outcome written on the same connection, and a
// scan's next replay claims on it too; a longer command holds none while it
// runs, so that max_connections bounds how many fires start at once, not
// how many jobs run (docs/distributed.md).
const letGoAfter = 200 * time.Millisecond

// letGo closes the pool's connections p.letGoAfter (letGoAfter but in
// tests) from now, unless another
// letGo comes first and puts it off: a scan replaying one quick slot after
// another keeps its connection, a long job's run lets go of it. A
// connection in use when the time comes is closed as it is released.
func (p *Ledger) letGo() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if p.idle == nil {
		p.idle = time.AfterFunc(p.letGoAfter, p.pool.Reset)
		return
	}
	p.idle.Reset(p.letGoAfter)
}
