package daemon

import (
	"sync"
	"sync/atomic"
	"time"
)

// health is what /healthz and /metrics read: when the scheduler loop last
// went round, and how late the fires started.
type health struct {
	beat    atomic.Int64 // Unix nanoseconds of the loop's last round (real clock)
	mu      sync.Mutex
	fires   int64
	sum     float64
	last    float64
	max     float64
	running atomic.Int64
	ledger  ledgerHealth // under mu
}

// Lag is the scheduler's lateness so far: fires started, their lateness
// summed, the last one and the largest, in seconds of real time.
type Lag struct {
	Fires          int64
	Sum, Last, Max float64
	Running        int64         // jobs (fires and replays) in progress
	SinceLoop      time.Duration // since the scheduler loop last went round
	// FiresUnrecorded counts the fires the ledger could not record (not
	// run, or run unrecorded); LedgerFailing is how long the ledger has
	// failed to record the fires (0: it records them), also while a fire
	// has waited for its first write longer than the bound (ledgerWait),
	// counted from that fire's start.
	FiresUnrecorded int64
	LedgerFailing   time.Duration
}

func (h *health) observe(late time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := late.Seconds()
	h.fires++
	h.sum += s
	h.last = s
	h.max = max(h.max, s)
}

// Lag returns the scheduler's lateness and liveness.
func (d *Daemon) Lag() Lag {
	d.health.mu.Lock()
	defer d.health.mu.Unlock()
	l := Lag{Fires: d.health.fires, Sum: d.health.sum, Last: d.health.last, Max: d.health.max,
		Running: d.health.running.Load(), SinceLoop: time.Since(time.Unix(0, d.health.beat.Load())),
		FiresUnrecorded: d.health.ledger.unrecorded}
	for _, since := range []time.Time{d.health.ledger.failingSince, d.health.ledger.waitingSince()} {
		if !since.IsZero() {
			l.LedgerFailing = max(l.LedgerFailing, time.Since(since))
		}
	}
	return l
}
