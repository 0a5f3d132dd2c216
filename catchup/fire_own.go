package catchup

// Which fires are a slot's own cron fires (docs/slots.md, "The slot of a
// fire"): they never run a slot that another run holds, even a failed one.

import "time"

// cronShaped reports whether this fire's wall-clock minute matches the
// schedule: the shape of the slot's own fire, or of its twin (a second
// cron, another host of a fleet), not of a retry by hand.
func (l *lifecycle) cronShaped() bool {
	return l.sched != nil && l.sched.Matches(l.m.Now())
}

// ownFire reports whether this fire of slot is one cron makes for it: a
// cron-shaped fire, or one of cronie's catch-up fires of the wall times a
// spring-forward skipped, which slot merges (they come 10 s apart after
// the change, at 03:00:10 and so on, and match no minute of the
// expression). A failed slot is held against them: the job runs once per
// slot, not once per skipped time.
func (l *lifecycle) ownFire(slot time.Time) bool {
	if l.cronShaped() {
		return true
	}
	if l.sched == nil {
		return false
	}
	window := l.sched.CatchUpWindow(slot)
	since := l.m.Now().Sub(slot)
	return window > 0 && since >= 0 && since <= window
}
