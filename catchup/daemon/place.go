package daemon

import "context"

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
