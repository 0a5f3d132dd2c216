package catchup

// Which fires are a slot's own cron fires (docs/slots.md, "The slot of a
// fire"): they never run a slot that another run holds, even a failed one.

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// fireTime is when this fire came: when it resolved its slot (firedAt),
// else now. Whether a fire is its slot's own (cron-shaped, early, a DST
// catch-up) is read at that time: a fire that waited for its task's lock
// (--on-busy wait) past its minute is still the fire cron made then, and
// its twin's failed run holds the slot against it.
func (l *lifecycle) fireTime() time.Time {
	if l.firedAt.IsZero() {
		return l.m.Now()
	}
	return l.firedAt
}

// cronShaped reports whether this fire's wall-clock minute matches the
// schedule: the shape of the slot's own fire, or of its twin (a second
// cron, another host of a fleet), not of a retry by hand. A fleet host in
// another zone (fleetZone) reads the registered zone's slots, but its cron
// fires the line in its own: its minute matches the line in this host's
// zone.
func (l *lifecycle) cronShaped() bool {
	now := l.fireTime()
	return l.sched != nil && l.sched.Matches(now) || l.fleetZone && l.req.Schedule != nil && l.req.Schedule.Matches(now)
}

// ownFire reports whether this fire of slot is one cron makes for it: a
// cron-shaped fire, an early fire of it (earlyOf: cron fired it and this
// clock lags, as a fleet's host behind the others does), a daemon's fire
// of it (daemonFireOf), or one of cronie's
// catch-up fires of the wall times a spring-forward skipped, which slot
// merges (they come 10 s apart after the change, at 03:00:10 and so on,
// and match no minute of the expression). A failed slot is held against
// them: the job runs once per slot, not once per skipped time.
func (l *lifecycle) ownFire(slot time.Time) bool {
	if l.sched == nil {
		return false
	}
	if l.cronShaped() || l.earlyOf(slot) || l.earlyTwin() || l.daemonFireOf(slot) || l.hostZoneOwnFire() {
		return true
	}
	window := l.sched.CatchUpWindow(slot)
	since := l.fireTime().Sub(slot)
	return window > 0 && since >= 0 && since <= window
}

// daemonFireOf reports whether this is a daemon's fire of slot (FireSlot):
// the daemon fires each slot it comes to once, as cron does, however late
// it starts (held back behind the task's replays, or under --concurrency),
// so it is that slot's own fire; a replica's fire of a slot the other
// replica ran and failed is its twin, not a retry by hand.
func (l *lifecycle) daemonFireOf(slot time.Time) bool {
	return !l.req.FireSlot.IsZero() && l.req.FireSlot.Equal(slot)
}

// hostZoneOwnFire reports whether a fleet host in another zone (fleetZone:
// it reads the registered zone's slots) fires as its cron does in its own
// zone: early for the line's next instant there (a clock that lags), or
// within a spring-forward catch-up window of its latest one there (cronie's
// fires of the skipped wall times). cronShaped covers its own minute.
func (l *lifecycle) hostZoneOwnFire() bool {
	s := l.req.Schedule
	if !l.fleetZone || s == nil {
		return false
	}
	now := l.fireTime()
	if next, ok := s.Next(now); ok && next.Sub(now) <= earlyFire {
		return true
	}
	prev, ok := s.Prev(now)
	if !ok {
		return false
	}
	window, since := s.CatchUpWindow(prev), now.Sub(prev)
	return window > 0 && since >= 0 && since <= window
}

// earlyFire is how long before a slot a fire may come and stand for it.
// cron starts a job at second 0 of the slot's minute, so a fire that reads
// a time before the slot saw a clock stepped back after cron woke (an NTP
// step: well under a second on a synced host) or a fleet's skew; 5 s
// covers those, and is far from the 60 s between two slots of any
// expression, so such a fire is never a late fire of the slot before
// (except in a minute the expression matches: that is its own minute's
// fire).
const earlyFire = 5 * time.Second

// earlyFor returns the slot a fire at now came early for, if any: the next
// slot, when it is at most earlyFire ahead and now's minute does not match
// the expression.
func (l *lifecycle) earlyFor(now time.Time) (time.Time, bool) {
	next, ok := l.sched.Next(now)
	if !ok || next.Sub(now) > earlyFire || l.cronShaped() {
		return time.Time{}, false
	}
	return next, true
}

// earlyTwin reports whether this fire came early (earlyFire) for a wall
// minute the expression matches that is no slot: the second occurrence of
// a fixed time the clocks went back over, which cron under CRON_TZ fires
// (a cron-shaped twin of the slot's fire, read by a clock that lags). It
// stands for the latest slot, as that fire on time does, and is its own
// fire, as that one is. An early fire of a minute that is a slot is
// earlyFor's.
func (l *lifecycle) earlyTwin() bool {
	return l.sched != nil && !l.cronShaped() && earlyForMinute(l.sched, l.fireTime())
}

// earlyForMinute reports whether t, in a minute s does not match, is at
// most earlyFire before the next wall minute (in s's zone), and s matches
// that one: cron fired s's line at that minute, and this clock lags.
func earlyForMinute(s *schedule.Schedule, t time.Time) bool {
	if s.Matches(t) {
		return false
	}
	w := t.In(s.Location())
	minute := t.Add(time.Minute - time.Duration(w.Second())*time.Second - time.Duration(w.Nanosecond()))
	return minute.Sub(t) <= earlyFire && s.Matches(minute)
}

// earlyOf reports whether this fire came early for slot (earlyFor).
func (l *lifecycle) earlyOf(slot time.Time) bool {
	next, ok := l.earlyFor(l.fireTime())
	return ok && next.Equal(slot)
}

// retryByHand is fire f of a slot that failed (or timed out) and that no
// run holds against it: a fire that is not the slot's own (late, by hand)
// runs it again, as a retry by hand, so it is recorded as one (trigger
// manual, as run --slot is) and says so, naming the slot.
func (l *lifecycle) retryByHand(ctx context.Context, f fire) fire {
	if !f.scheduled || l.req.Force || l.ownFire(f.slot) {
		return f
	}
	runs, err := l.st.SlotRuns(ctx, l.req.Task, f.slot, f.slot, 0)
	if err != nil {
		return f // a read fault: the claim decides
	}
	var failed store.Run
	for _, r := range runs {
		if r.Slot.Equal(f.slot) && (r.Status == store.StatusFailed || r.Status == store.StatusTimeout) && r.ID > failed.ID {
			failed = r
		}
	}
	if failed.ID == 0 {
		return f
	}
	return l.asRetryByHand(f, holderState(failed))
}

// notedRetryByHand is retryByHand while the ledger cannot be reached: the
// failed (or timed-out) run of f's slot is a note of this host's
// (notedHolder holds it against the slot's own fires only).
func (l *lifecycle) notedRetryByHand(notes *pendingNotes, f fire) fire {
	if !f.scheduled || l.req.Force || l.ownFire(f.slot) {
		return f
	}
	for _, r := range notes.runs(nil, l.req.Task, l.sched, knownFrom(l.registered, l.sched), f.slot.Add(-time.Second), f.slot, l.req.Tolerance) {
		if r.Slot.Equal(f.slot) && notes.unrecorded(r) && (r.Status == store.StatusFailed || r.Status == store.StatusTimeout) {
			return l.asRetryByHand(f, fmt.Sprintf("%s at %s, noted on this host while the ledger failed", notedOutcome(r.Status), rfc(r.StartedAt)))
		}
	}
	return f
}

// asRetryByHand is fire f of a slot in state (its failed run's) as a retry
// by hand, and says so.
func (l *lifecycle) asRetryByHand(f fire, state string) fire {
	l.m.notice("slot %s of %s %s; running it again, as a retry by hand (trigger manual): this fire is not cron's fire of it (--manual runs the task without a slot)",
		formatSlot(f.slot, l.sched), l.req.Task, state)
	f.trigger = store.TriggerManual
	return f
}

// againHint says how to run a slot that h holds once more.
func againHint(h store.Run) string {
	if h.Status == store.StatusFailed || h.Status == store.StatusTimeout {
		return "--force runs the slot again"
	}
	return "--manual runs the task by hand"
}
