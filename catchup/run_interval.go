package catchup

import "time"

// ownInterval reports whether this run is told its slot's own interval,
// from the schedule's slot before it: a checkpoint recorded by an earlier
// run of the slot was made for that interval. A coalesced replay told a
// wider gap starts afresh: resuming would skip the gap's start.
func (l *lifecycle) ownInterval(slot time.Time) bool {
	if l.req.PrevSlot.IsZero() || l.sched == nil {
		return true
	}
	p, ok := l.sched.Prev(slot.Add(-time.Second))
	return ok && p.Equal(l.req.PrevSlot)
}
