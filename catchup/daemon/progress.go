package daemon

import (
	"sync"
	"sync/atomic"
	"time"
)

// progress is how far a task's loop has come: every slot at or before it
// has been fired (its fire may still run) or left to the loop's rescans,
// which replay no later slot (MissedRule.FiringAfter); the loop fires none
// of them again. A reload that restarts the loop goes on from there, once
// the old loop's work (its fires and replays, which outlive it) has ended.
type progress struct {
	ns      atomic.Int64
	skipped atomic.Int64    // the loop skipped the slots at or before it (behind.go)
	work    sync.WaitGroup  // the loop's fires and replays
	after   <-chan struct{} // closed once the work of the loops it replaces has ended; nil: none
	prev    *progress       // the progress of the loop it replaces; nil once inherited
}

// inherit takes over, once the loops it replaces have ended (after), the
// slots they skipped or left missed (skip): their fires, which outlive
// them, may have left some after the reload. A loop that never began
// passes on those of the loop before it. Called by the loop's goroutine.
func (p *progress) inherit() {
	for q := p.prev; q != nil; q = q.prev {
		p.skip(q.skippedThrough())
	}
	p.prev = nil
}

// idle returns a channel closed once the loop's work and that of the loops
// before it have ended; called once the loop has returned (no more work).
func (p *progress) idle() <-chan struct{} {
	c := make(chan struct{})
	go func() {
		if p.after != nil {
			<-p.after
		}
		p.work.Wait()
		close(c)
	}()
	return c
}

func (p *progress) set(t time.Time) { p.ns.Store(t.UnixNano()) }

// get returns the progress; zero before the loop began.
func (p *progress) get() time.Time {
	if ns := p.ns.Load(); ns != 0 {
		return time.Unix(0, ns).UTC()
	}
	return time.Time{}
}

// skip notes that the loop skipped the slots at or before t: no fire comes
// for them (the loop fell behind the clock), so a scan counts them missed
// at once, --tolerance or not (MissedRule.FiredAfter).
func (p *progress) skip(t time.Time) {
	if t.IsZero() {
		return
	}
	for {
		old := p.skipped.Load()
		if t.UnixNano() <= old || p.skipped.CompareAndSwap(old, t.UnixNano()) {
			return
		}
	}
}

// skippedThrough is the latest skip; zero when the loop skipped none.
func (p *progress) skippedThrough() time.Time {
	if ns := p.skipped.Load(); ns != 0 {
		return time.Unix(0, ns).UTC()
	}
	return time.Time{}
}
