package catchup

// A fire given a schedule (--cron, or its task's registered one) that
// stands for no slot (trigger manual, docs/contract.md "Slot resolution",
// "otherwise") says why on stderr, with the fix: never silently. The slot
// it would have stood for is not the task's, so no scan replays it.

import (
	"fmt"
	"time"
)

// sayResolved says what stderr must know of the slot fire f resolved to: a
// fire early for its slot (this clock lags), or a fire of a schedule that
// stands for no slot, and why.
func (l *lifecycle) sayResolved(f fire) {
	if f.early > 0 {
		l.m.notice("this fire came %s before slot %s of %s: it stands for that slot (cron fired it; this clock lags)",
			FormatDuration(f.early.Round(time.Millisecond)), formatSlot(f.slot, l.sched), l.req.Task)
	}
	if f.unslotted != "" {
		l.m.notice("%s", f.unslotted)
	}
}

// beforeRegistration says why a fire of the task's own schedule stands for
// no slot: tick comes before the task's registration. A registration later
// than now is a clock that went back, or was ahead when the task was
// registered (reset-clock, as scan says).
func (l *lifecycle) beforeRegistration(tick, now time.Time) string {
	s := fmt.Sprintf("slot %s of %s comes before the task's registration", formatSlot(tick, l.sched), l.req.Task)
	const what = ": this fire stands for no slot (trigger manual), and no scan replays that slot"
	if reg := l.registered.RegisteredAt; reg.After(now) {
		return s + what + "; " + clockAheadWarning(l.req.Task, reg, now, l.sched)
	}
	return fmt.Sprintf("%s (%s)%s (the task's slots begin at its registration)",
		s, formatSlot(l.registered.RegisteredAt, l.sched), what)
}

// lateFirstFire says why the first fire of a schedule stands for no slot:
// it came later than --tolerance after tick.
func (l *lifecycle) lateFirstFire(tick, now time.Time) string {
	return fmt.Sprintf("this fire came %s after slot %s of %s, later than --tolerance (%s), and is the first of its "+
		"schedule: it stands for no slot (trigger manual) and the schedule counts from now, so no scan replays that slot; "+
		"give the fire a larger --tolerance if cron fires it this late",
		beyond(now.Sub(tick), l.req.Tolerance), formatSlot(tick, l.sched), l.req.Task, FormatDuration(l.req.Tolerance))
}

// beyond formats d, longer than limit, in whole seconds when these tell it
// from limit, else finer: a fire 5m0.4s late, with --tolerance 5m, came
// "5m0.4s" late, never "5m", which reads as within it.
func beyond(d, limit time.Duration) string {
	for _, unit := range []time.Duration{time.Second, time.Millisecond, time.Microsecond} {
		if t := d.Truncate(unit); t > limit {
			return FormatDuration(t)
		}
	}
	return FormatDuration(d)
}

// noSlotYet says why a fire of a schedule with no slot at or before now
// stands for no slot.
func (l *lifecycle) noSlotYet() string {
	return fmt.Sprintf("task %s: its schedule has no slot at or before now: this fire stands for no slot (trigger manual)",
		l.req.Task)
}
