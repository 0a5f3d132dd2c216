package catchup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// aheadOf returns the latest time the ledger holds of task t that is later
// than now (its latest slot, its watermark, its registration, when its
// schedule took effect, when its pause began), or zero. Such a time means the clock went back, or
// was ahead when it was recorded. The instant a schedule took effect counts
// on its own: a dead run of the old schedule takes the watermark back below
// it, and a ScheduleSince left later than now would pass every slot until
// then by, never missed (reset-clock brings it back).
// Each counts only when more than clockSlack ahead: the watermark and the
// registration are instants of a process's clock, so that a command run in
// the same second as the fire that registered the task sees nothing; and a
// slot may have been claimed by another host of a fleet whose clock is a
// few seconds ahead (skew well under the lease is allowed). A pause always
// begins at the clock's now (`pause`), so one that begins later than now
// was recorded while the clock was ahead: it would not be in effect until
// then, and would begin by itself years later (reset-clock brings it back).
// Its end may lie ahead (`pause --until`), so it does not count.
func aheadOf(t store.Task, latestSlot, now time.Time) time.Time {
	var ahead time.Time
	for _, v := range []time.Time{latestSlot, t.SettledThrough, t.RegisteredAt, t.ScheduleSince, t.PausedAt} {
		if v.After(now.Add(clockSlack)) && v.After(ahead) {
			ahead = v
		}
	}
	return ahead
}

// clockSlack is how far a time of the ledger (a slot, the watermark, the
// registration) may lie ahead of now without counting as ahead of the clock.
const clockSlack = time.Minute

// clockAheadWarning says that task holds a time later than now, and what to
// do if the clock was wrong when it was recorded.
func clockAheadWarning(task string, ahead, now time.Time, s *schedule.Schedule) string {
	return fmt.Sprintf("the ledger holds %s, later than now (%s): the clock went back, "+
		"or was ahead when that was recorded (then catchup reset-clock %s)", formatSlot(ahead, s), formatSlot(now, s), task)
}

// clockAheadNote says, for calendar and explain, that task t's ledger holds
// a time later than now, so that scan replays none of its slots (as ls and
// scan say); "" when it does not. notes: this host's notes of unrecorded
// fires, whose slots count as the next scan records them (heldWith).
func clockAheadNote(ctx context.Context, st store.Store, t store.Task, s *schedule.Schedule, now time.Time,
	notes *pendingNotes, tolerance time.Duration) (string, error) {
	latest, err := st.LatestSlot(ctx, t.Name)
	if err != nil {
		return "", err
	}
	return clockAheadNoteAt(t, notes.heldWith(latest, t, s, tolerance), s, now), nil
}

// clockAheadNoteAt is clockAheadNote with the latest slot of any record of
// t already read.
func clockAheadNoteAt(t store.Task, latest time.Time, s *schedule.Schedule, now time.Time) string {
	ahead := aheadOf(t, latest, now)
	if ahead.IsZero() {
		return ""
	}
	return clockAheadWarning(t.Name, ahead, now, s) + "; until then scan replays none of its slots"
}

// ClockReset is what ResetClock did (or would do) to one task.
type ClockReset struct {
	Task string
	store.ClockResetResult
	Floor time.Time // where a watermark more than clockSlack ahead went
}

// ResetClock takes the present clock as right for a task whose ledger holds
// times later than now (a clock that was ahead when they were recorded):
// the runs recorded for slots more than clockSlack later than now lose their
// slot (they stay in the history, with a note), expiries decided later than
// that are undone, and a watermark later than that goes back to the start of
// the task's catch-up window (or of its current schedule, scheduleBarrier),
// so that scan replays its missed slots again.
func ResetClock(ctx context.Context, st store.Store, m Machine, task string, dry bool) (ClockReset, error) {
	t, err := st.Task(ctx, task)
	if errors.Is(err, store.ErrNotFound) {
		return ClockReset{}, UnknownTask(task)
	}
	if err != nil {
		return ClockReset{}, err
	}
	now := m.Now()
	floor := now.Add(-catchupWindow(t, MissedRule{})).Add(-time.Second)
	floor, err = scheduleBarrier(ctx, st, m, t, floor, now)
	if err != nil {
		return ClockReset{}, err
	}
	note := fmt.Sprintf("recorded while the clock was ahead; detached from its slot by reset-clock at %s",
		now.UTC().Format(time.RFC3339))
	// What lies within clockSlack of now is not ahead (aheadOf): a slot
	// another host, seconds ahead, claimed stays its own.
	res, err := st.ResetClock(ctx, store.ClockReset{Task: task, Now: now.Add(clockSlack), Floor: floor, Note: note, DryRun: dry})
	return ClockReset{Task: task, ClockResetResult: res, Floor: floor}, err
}

// scheduleBarrier raises floor, the watermark reset-clock gives back, to
// the task's current schedule's first run after the last run of an older
// schedule (or zone): the slots before it are of a schedule changed since,
// whose days ran at their own times (lowered to the window's edge, scan
// replayed them in the new schedule: run twice). Within one schedule the
// floor stays: a slot without a run there is missed. Only runs recorded
// while the clock was right count (reset-clock removes the others, an
// expiry of a slot before now among them).
func scheduleBarrier(ctx context.Context, st store.Store, m Machine, t store.Task, floor, now time.Time) (time.Time, error) {
	sched, err := storedSchedule(m, nil, t)
	if err != nil || sched == nil {
		return floor, nil
	}
	runs, err := st.SlotRuns(ctx, t.Name, floor, now, 0)
	if err != nil {
		return floor, err
	}
	var kept []time.Time // the slots of the runs recorded while the clock was right
	for _, r := range runs {
		if !r.Slot.IsZero() && !r.Slot.After(now) && !r.StartedAt.After(now.Add(clockSlack)) {
			kept = append(kept, r.Slot)
		}
	}
	var lastOld, firstNew time.Time
	for _, slot := range kept {
		if !sched.Has(slot) && slot.After(lastOld) {
			lastOld = slot
		}
	}
	if lastOld.IsZero() {
		return floor, nil
	}
	for _, slot := range kept {
		if slot.After(lastOld) && sched.Has(slot) && (firstNew.IsZero() || slot.Before(firstNew)) {
			firstNew = slot
		}
	}
	barrier := lastOld
	if !firstNew.IsZero() {
		barrier = firstNew.Add(-time.Second)
	}
	if barrier.After(floor) {
		return barrier, nil
	}
	return floor, nil
}

// clockBound reports whether a slot in state s may owe its state to a time
// of the task the ledger holds later than now, which catchup reset-clock
// undoes: a missed slot scan does not replay meanwhile, one before a
// registration, passed by a watermark or expired by a scan while the clock
// was ahead. explain then names the clock and the way out, as ls --missed
// lists the task ("clock ahead").
func clockBound(s string) bool {
	return s == StateMissed || s == StateUnregistered || s == StatePassed || s == StateExpired || s == StateUnscheduled
}
