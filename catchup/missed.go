package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// MissedRule holds the knobs of the missed-slot rule, shared by scan and ls.
type MissedRule struct {
	MaxAge      time.Duration // the catch-up window for every task; 0: each task's own (else DefaultMaxAge)
	Tolerance   time.Duration // a slot younger than this may still be fired by cron
	RetryFailed bool          // a slot whose latest attempt failed or timed out is missed too
	// FiredAfter: nothing fires a slot at or before this time (the daemon's
	// start: its loops fire only later slots), so such a slot is missed at
	// once, younger than Tolerance too. Zero: cron may still fire it.
	FiredAfter time.Time
	// FiringAfter: a slot after this time is still to be fired (the
	// daemon's loop has not come to it yet, and fires it, late if need
	// be), so it is not missed yet, older than Tolerance too: a replay of
	// it would meet that fire. Zero: no such bound.
	FiringAfter time.Time
}

// catchupWindow is how far back scan replays task t's slots: the rule's
// --max-age when given, else the task's own, else DefaultMaxAge. Older
// missed slots are recorded expired instead.
func catchupWindow(t store.Task, rule MissedRule) time.Duration {
	switch {
	case rule.MaxAge > 0:
		return rule.MaxAge
	case t.MaxAge > 0:
		return t.MaxAge
	}
	return DefaultMaxAge
}

// missed is what missedSlots found for one task.
type missed struct {
	slots    []time.Time // oldest first
	causes   []string    // why each slot was missed, in step with slots
	expiring int         // the first expiring slots lie before the catch-up window
	// offSchedule are the slots, oldest first, owed to an older schedule
	// or zone (a run of it found dead after the change, a paused record
	// resume --replay-paused gave back) that the schedule does not have and
	// no record settles: no scan replays them, so scan records them expired
	// (store.ReasonScheduleChanged), or they would hold the watermark below
	// them for good. Not in slots (scan replays none of them), but missed:
	// every reader counts them (counted), with their causes (offCauses,
	// in step).
	offSchedule []time.Time
	offCauses   []string
	win         window
	// read is the newest run id among the runs the rule read (0: none): a
	// run of one of these slots with a greater id was made since.
	read int64
}

// missedSlots applies the rule to one task. A slot is missed when it lies
// after the task's registration; it is older than the tolerance, or older
// than this boot (cron can no longer fire it); and no run of it reached an
// outcome. stale holds running records known to be dead. Missed slots
// older than the task's catch-up window are expiring: scan records them
// expired instead of replaying them. Each missed slot gets its cause, from
// its records and from the boots of the hosts involved (boots caches them
// across tasks).
//
// Slots at or before the task's watermark (SettledThrough, which scan
// advances past the slots it found settled or recorded expired) are not
// looked at again, so the cost is one indexed range query over the slots
// since the last scan: it grows with the number of tasks and of recent or
// missed slots, not with the length of the history. The watermark never
// passes a recent failed slot, so RetryFailed finds every failure it may
// retry above it.
//
// Every caller, scan and the readers that write nothing (ls, metrics,
// explain), looks at the same slots, from the watermark: a missed slot the
// next scan records expired, however old, is missed until a scan records
// it, and they all count the same slots for one ledger and clock.
//
// notes are this host's notes of unrecorded fires, which a reader counts
// as the next scan will record them (nil: none, scan's own reading).
func missedSlots(ctx context.Context, st store.Store, m Machine, t store.Task, s *schedule.Schedule,
	rule MissedRule, stale map[int64]bool, boots *bootCache, notes *pendingNotes) (missed, error) {
	now := m.Now()
	from := missedFrom(t)
	if !now.After(from) {
		return judgeSlots(m, t, s, rule, stale, nil, from, now, nil).missed, nil
	}
	// Read up to now: a slot still due whose fire came and died is missed
	// already (diedFiring).
	runs, err := st.SlotRuns(ctx, t.Name, from, now, rule.Tolerance)
	if err != nil {
		return missed{win: window{after: from, upTo: dueBefore(m, rule, now)}}, err
	}
	j := judgeSlots(m, t, s, rule, stale, notes, from, now, runs)
	for _, r := range runs {
		j.read = max(j.read, r.ID)
	}
	if j.hasMissed() {
		if boots == nil {
			boots = newBootCache(st, m).with(notes)
		}
		u, err := boots.taskUptime(ctx, t.Name, j.fires)
		if err != nil {
			return j.missed, err
		}
		j.addCauses(stale, u)
	}
	return j.missed, nil
}

// missedFrom is the instant after which the missed-slot rule looks at t's
// slots: its watermark, or just before its registration. Slots sit at
// second 0: one second earlier makes the registration instant itself
// inclusive (a task registers as of its first slot).
func missedFrom(t store.Task) time.Time {
	from := t.RegisteredAt.Add(-time.Second)
	if t.SettledThrough.After(from) {
		from = t.SettledThrough
	}
	return from
}

// beforeSchedule reports whether slot lies at or before the instant task
// t's schedule took effect (store.Task.ScheduleSince), with no record of
// it (recorded: a run names it, or a run without a slot stands for it):
// the schedule did not have it then, so it is never missed. The watermark
// is below such a slot only when a record of an older slot moved it back
// (a run of the old schedule found dead after the change); a slot with a
// record (that dead run's, when the new schedule has its slot too) is
// judged by the rule as any other.
func beforeSchedule(t store.Task, slot time.Time, recorded bool) bool {
	return !recorded && !t.ScheduleSince.IsZero() && !slot.After(t.ScheduleSince)
}

// How a slot is settled, by slotSettled.
const (
	notSettled = iota // missed, once due
	byItsRuns         // a run that names it
	bySlotless        // the run without a slot that stands for it
)

// slotSettled is the missed-slot rule for one slot, which scan, ls,
// metrics, explain and calendar all decide by. The slot is settled when a
// run naming it (records, by id) holds it against a replay's claim
// (claimHolder: it succeeded, or is running), with or without RetryFailed,
// since the claim refuses such a slot (a later failed record of it, another
// host's, or a failed run --force, changes nothing); else when a run naming
// it settles it, unless, with RetryFailed, the latest of them failed or
// timed out; else when the run without a slot that stands for it (slotless,
// when has) settles it.
func slotSettled(records []store.Run, slotless store.Run, has bool, rule MissedRule, stale map[int64]bool) int {
	if _, held := claimHolder(records, stale); held {
		return byItsRuns
	}
	named := false
	var last store.Run
	for _, r := range records {
		named = named || settles(r, rule, stale)
		if r.ID > last.ID {
			last = r
		}
	}
	switch {
	case named && !(rule.RetryFailed && failedAttempt(last)):
		return byItsRuns
	case has && settles(slotless, rule, stale):
		return bySlotless
	}
	return notSettled
}

// diedFiring reports whether a slot's fire came and died: one of its runs
// was interrupted, or is running with its process gone (stale). The
// tolerance spares a slot that cron may still fire; this one it fired, and
// no fire will come for it again, so it is missed as soon as it is seen
// (a dead host's run is replayed once its lease ran out, before the
// task's later slots).
func diedFiring(records []store.Run, stale map[int64]bool) bool {
	for _, r := range records {
		if r.Status == store.StatusInterrupted || r.Status == store.StatusRunning && stale[r.ID] {
			return true
		}
	}
	return false
}

// failedAttempt reports whether run r failed or timed out.
func failedAttempt(r store.Run) bool {
	return r.Status == store.StatusFailed || r.Status == store.StatusTimeout
}

// dueBefore is the last instant whose slots cron can no longer fire: now
// less the tolerance, or just before this boot when the host came up
// since (a slot of its downtime will not fire), or FiredAfter (the
// daemon's start); never after FiringAfter (the slots the daemon's loop
// still fires).
func dueBefore(m Machine, rule MissedRule, now time.Time) time.Time {
	upTo := now.Add(-rule.Tolerance)
	if !m.BootTime.IsZero() && m.BootTime.Before(now) && m.BootTime.After(upTo) {
		upTo = m.BootTime.Add(-time.Second)
	}
	if f := rule.FiredAfter; f.After(upTo) {
		upTo = earliest(f, now)
	}
	if f := rule.FiringAfter; !f.IsZero() && f.Before(upTo) {
		upTo = f
	}
	return upTo
}

// window is the range of slots missedSlots looked at, (after, upTo], the
// earliest slot in it whose latest attempt failed or timed out (and none
// succeeded) younger than the watermark's horizon (watermarkHorizon, or the
// task's catch-up window when larger), and the
// earliest that a run was running for (a claim on another host may yet be
// given back as a lock skip, and any running run may yet be interrupted,
// leaving its slot missed; that includes a run without a slot that stands
// for one).
type window struct {
	after, upTo, firstFailed, firstRunning time.Time
	// firstHeld: the earliest slot a live run (not stale) held, running,
	// when the task was read; firstHeldBy is that run's id. Scan replays
	// no slot after it (withholdAfterHeld).
	firstHeld   time.Time
	firstHeldBy store.Run
}

// settles reports whether run r gives its slot an outcome.
func settles(r store.Run, rule MissedRule, stale map[int64]bool) bool {
	switch r.Status {
	case store.StatusSucceeded, store.StatusExpired:
		return true
	case store.StatusPaused: // unless resume --replay-paused gave it back
		return r.Reason != store.ReasonReplayPaused
	case store.StatusFailed, store.StatusTimeout:
		return !rule.RetryFailed
	case store.StatusRunning:
		return !stale[r.ID]
	case store.StatusSkipped:
		// A skip by a policy (scan's coalesce, a ledger's older policy skips, or a
		// fire's --on-busy skip) has no exit code and settles its slot. A
		// skip because the task was running (exit 75, here or on another
		// host) leaves it missed, and a duplicate fire (exit 0) says
		// nothing about it: another run holds it.
		return r.ExitCode == nil
	default: // interrupted
		return false
	}
}
