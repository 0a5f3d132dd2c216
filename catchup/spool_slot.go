package catchup

import (
	"context"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// The record of a fire note, and the slot a note that names none stands for.

// noteRun is the record of fire note e: what the next scan records, and
// what the readers take it for until then. slotOf finds the slot of a note
// that names none (slotOfFire, noteSlot).
func noteRun(e spoolEntry, slotOf func(spoolEntry) time.Time) store.Run {
	r := store.Run{Task: e.Task, Slot: e.Slot, Trigger: e.Trigger, Attempt: 1, StartedAt: e.StartedAt,
		EndedAt: e.EndedAt, Host: e.Host, PID: e.PID, BootID: e.BootID, Reason: store.ReasonUnreachable}
	why := "the ledger could not be reached"
	if e.LockFault { // the ledger was fine: its slot's cause is lock-file
		r.Reason, why = store.ReasonLockFile, "this host's lock for the task could not be taken"
	} else if e.RowLocked { // reached: its slot's cause is ledger-locked
		r.Reason, why = store.ReasonLedgerLocked, "another session of the ledger held the task's row past the lock timeout"
	}
	if e.ByHand {
		r.Reason = store.ReasonByHand // still recorded late: its Error says so
	} else if r.Slot.IsZero() {
		// A fire that could not read its line's schedule ran as one by
		// hand would (trigger manual); the slot it stands for makes it
		// that slot's cron fire, as it is when it reads the ledger
		// (resolveFire: trigger schedule, however late).
		if r.Slot = slotOf(e); !r.Slot.IsZero() {
			r.Trigger = store.TriggerSchedule
		}
	}
	switch {
	case e.Ran:
		r.Status, r.ExitCode = e.Status, e.ExitCode
		r.Error = "recorded late: " + why + " when it ran: " + e.Error
	case e.Locked:
		r.Status, r.ExitCode, r.Error, r.Reason = store.StatusSkipped, exitCodePtr(exitLocked), reasonLocked, ""
	default:
		r.Status, r.ExitCode = store.StatusSkipped, exitCodePtr(exitLocked)
		r.Error = "not run: " + why + ": " + e.Error
	}
	return r
}

// slotOfFire is the slot a slotless fire stood for under its task's
// registered schedule (noteSlot); else none.
func slotOfFire(ctx context.Context, st store.Store, m Machine, e spoolEntry, tolerance time.Duration) time.Time {
	t, err := st.Task(ctx, e.Task)
	if err != nil {
		return time.Time{}
	}
	s, err := storedSchedule(m, nil, t)
	if err != nil {
		return time.Time{}
	}
	return noteSlot(s, knownFrom(&t, s), e, tolerance)
}

// noteSlot is the slot slotless fire note e stands for under schedule s
// (nil: none). A fire that could not read the ledger could not read its
// line's schedule either, and ran without a slot; it stands for the slot
// it would have taken had it read the registration (resolveFire): the
// latest at or before it, however late, when that slot is not before
// known (when the task became known under s; zero: not known); else, as
// a first fire, the latest within tolerance (slotAtStart). Within
// tolerance only, a fire late past it ran the job unrecorded, and the
// scan that recorded its note replayed the slot: twice for one slot. A fire
// early for the next slot (earlySlot: at most earlyFire before it, in a
// minute the expression does not match) stands for that slot, as it does
// when it reads the ledger; taken for the slot before, its slot was
// replayed: twice again.
func noteSlot(s *schedule.Schedule, known time.Time, e spoolEntry, tolerance time.Duration) time.Time {
	if s == nil {
		return time.Time{}
	}
	if p, ok := slotAtStart(s, e.StartedAt, tolerance); ok { // early for its slot, or within tolerance
		return p
	}
	if p, ok := s.Prev(e.StartedAt); ok && !known.IsZero() && p.Unix() >= known.Unix() {
		return p
	}
	return time.Time{}
}

// knownFrom is when task t became known under schedule s, the registration
// a fire reads (knownSchedule): its registration, or its schedule's latest
// change when later. Zero when it is not: no task, a retired one (a fire
// registers it anew), or one registered under another schedule or zone.
func knownFrom(t *store.Task, s *schedule.Schedule) time.Time {
	if t == nil || s == nil || !t.RetiredAt.IsZero() ||
		!schedule.SameExpr(t.Schedule, s.Expr()) || !schedule.SameZone(t.TZ, s.Location().String()) {
		return time.Time{}
	}
	if t.ScheduleSince.After(t.RegisteredAt) {
		return t.ScheduleSince
	}
	return t.RegisteredAt
}

// heldWith is held (the latest slot of any record of task t) or the latest
// slot of t's fire notes (schedule s), whichever is later: the latest slot
// the ledger holds once the next scan records the notes, which counts for
// the clock (aheadOf) as a record's does. A note of a fire whose slot is
// later than now (the clock went back since) stops that scan at "clock
// ahead"; before, the readers listed the slots before it missed and
// scan --dry-run said it would replay them.
func (n *pendingNotes) heldWith(held time.Time, t store.Task, s *schedule.Schedule, tolerance time.Duration) time.Time {
	if n == nil || s == nil {
		return held
	}
	known := knownFrom(&t, s)
	for _, e := range n.fires {
		if e.Task != t.Name {
			continue
		}
		if r := noteRun(e, func(e spoolEntry) time.Time { return noteSlot(s, known, e, tolerance) }); r.Slot.After(held) {
			held = r.Slot
		}
	}
	return held
}

// dividing is divide (the slots that divide a coalesced gap as a success
// does: coalescedGaps' paused) with the slots of task t (schedule s) whose
// runs this host's notes hold succeeded, as the next scan records them: a
// dry run (which records no note) plans the gaps that scan replays. Before,
// it folded the slots on both sides of a noted success into one replay,
// where scan, which records the note first, replayed the two gaps.
func (n *pendingNotes) dividing(divide []time.Time, t store.Task, s *schedule.Schedule, tolerance time.Duration) []time.Time {
	if n == nil {
		return divide
	}
	out := slices.Clone(divide)
	known := knownFrom(&t, s)
	for _, e := range n.fires {
		if e.Task != t.Name {
			continue
		}
		r := noteRun(e, func(e spoolEntry) time.Time { return noteSlot(s, known, e, tolerance) })
		if r.Status == store.StatusSucceeded && !r.Slot.IsZero() {
			out = append(out, r.Slot)
		}
	}
	for _, e := range n.outcomes {
		if e.Task == t.Name && e.Status == store.StatusSucceeded && !e.Slot.IsZero() {
			out = append(out, e.Slot)
		}
	}
	return out
}
