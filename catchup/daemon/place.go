package daemon

import (
	"context"

	"github.com/catchup/catchup/catchup"
)

// The places among the simultaneous jobs (--concurrency): d.limiter holds
// one token per job running; nil when there is no bound.

// acquire takes a place among the simultaneous jobs; false when stopped first.
func (d *Daemon) acquire(ctx context.Context) bool {
	if d.limiter == nil {
		return ctx.Err() == nil
	}
	select {
	case d.limiter <- struct{}{}:
		if ctx.Err() != nil {
			d.release()
			return false
		}
		return true
	case <-ctx.Done():
		return false
	}
}

// tryAcquire takes a place among the simultaneous jobs if one is free now;
// false when none is, or when stopped.
func (d *Daemon) tryAcquire(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if d.limiter == nil {
		return true
	}
	select {
	case d.limiter <- struct{}{}:
		return true
	default:
		return false
	}
}

func (d *Daemon) release() {
	if d.limiter != nil {
		<-d.limiter
	}
}

// turns are h with a turn before each replay after a task's first: the
// scan gives its place back and waits for it again, behind the fires and
// scans of other tasks already waiting (the limiter serves them in order),
// so that a backlog under --concurrency does not hold every other task's
// fires back until its last replay. *placed says whether the scan holds a
// place when it ends. Without a bound there is nothing to wait for.
func (d *Daemon) turns(h catchup.ReplayHooks, placed *bool) catchup.ReplayHooks {
	if d.limiter == nil {
		return h
	}
	h.Turn = func(ctx context.Context, _ string) bool {
		d.release()
		*placed = d.acquire(ctx)
		return *placed
	}
	return h
}
