package catchup

import (
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// A crontab line's fire (no --cron) that cannot read the ledger cannot read
// its line's schedule either, so it cannot name its slot as a --cron fire
// does (notedHolder). Cron fires a line at most once in a minute, at its
// start: a second fire of the line in the same wall-clock minute (two cron
// daemons, a crontab installed twice, a clock stepped back a few seconds)
// is the first's twin, and stands for the same slot under any schedule of
// whole minutes, with one exception that lineTwinOf keeps out: a fire in a
// minute's last earlyFire seconds may be early for the next minute's slot
// (cron fired it, this clock lags: earlySlot), where a fire before them in
// that minute stood for the slot before.

// lineTwinOf reports, and says, whether a note of notes is of a fire of
// this line that ran in the same minute as a fire at now, on the same side
// of the minute's early window, and succeeded, or failed or timed out (a
// twin is the slot's own cron fire, which a failed run holds the slot
// against: a failing job runs once per slot, R13) unless --force: this
// fire is its twin, runs nothing and leaves no note, so that the next scan
// counts the slot once, by the first fire's note.
//
// When the line can be re-read from its crontab (the file its mark names:
// markedLineSchedule), a fire is also the twin of a noted fire of the
// line that stands for the same slot under the line as it reads now, the
// noted one that slot's own fire (lineFireOfSchedule: in a minute of the
// line, early for it, or in a spring-forward catch-up), and this one too
// unless the noted one succeeded (sameLineSlot): the second fire of a
// fall-back hour's wall time (CRON_TZ), an hour after the first; a second
// cron's late fire. A line edited since the first fire leaves that fire
// off its schedule, and holds nothing.
func (l *lifecycle) lineTwinOf(notes *pendingNotes, now time.Time) bool {
	var s *schedule.Schedule // the line as it reads now: read once, when a note may need it
	read := false
	for _, e := range notes.fires {
		if e.Task != l.req.Task || !e.Slot.IsZero() || e.ByHand || !e.Ran || l.req.Force ||
			(e.Status != store.StatusSucceeded && e.Status != store.StatusFailed && e.Status != store.StatusTimeout) {
			continue
		}
		if sameCronMinute(e.StartedAt, now) {
			l.m.notice("task %s: a fire of its line ran and %s at %s, in this minute, noted on this host while the ledger failed: "+
				"this fire is its twin (cron fires a line once a minute), not run; the next scan records that one (--manual runs the task by hand)",
				l.req.Task, notedOutcome(e.Status), rfc(e.StartedAt))
			return true
		}
		if !read {
			s, read = l.markedLineSchedule(), true
		}
		if slot, ok := sameLineSlot(s, e.StartedAt, now, e.Status == store.StatusSucceeded); ok {
			l.m.notice("task %s: a fire of its line ran and %s at %s, noted on this host while the ledger failed, for slot %s: "+
				"this fire is cron's fire of that slot again, not run; the next scan records that one (--manual runs the task by hand)",
				l.req.Task, notedOutcome(e.Status), rfc(e.StartedAt), formatSlot(slot, s))
			return true
		}
	}
	return false
}

// sameLineSlot is the slot that fires at a and b of a line of schedule s
// (nil: not known) both stand for, as each would take it reading s
// (earlySlot, else the latest at or before it, however late), when a is
// that slot's own fire (lineFireOfSchedule: a line edited since leaves it
// off), and b is too unless anyB: a slot that succeeded holds against any
// fire of it, a late one too (a second cron minutes late, cron's second
// fire of a fall-back hour seen early), as its record would; a failed one
// only against its own fires (R13).
func sameLineSlot(s *schedule.Schedule, a, b time.Time, anyB bool) (time.Time, bool) {
	if s == nil || !lineFireOfSchedule(s, a) || (!anyB && !lineFireOfSchedule(s, b)) {
		return time.Time{}, false
	}
	slotOf := func(t time.Time) (time.Time, bool) {
		if next, ok := earlySlot(s, t); ok {
			return next, true
		}
		return s.Prev(t)
	}
	sa, oka := slotOf(a)
	sb, okb := slotOf(b)
	return sa, oka && okb && sa.Equal(sb)
}

// sameCronMinute reports whether fires at a and b stand for one slot of
// any schedule of whole minutes: they are in one minute, and both or
// neither in its last earlyFire (one there may be early for the next).
func sameCronMinute(a, b time.Time) bool {
	ma, mb := a.Truncate(time.Minute), b.Truncate(time.Minute)
	early := func(t, m time.Time) bool { return t.Sub(m) >= time.Minute-earlyFire }
	return ma.Equal(mb) && early(a, ma) == early(b, mb)
}

// lineFireUnread reports whether this fire is a crontab line's scheduled
// fire that could not read its schedule: no --cron, --slot, --manual,
// replay or daemon slot, so fire f has no slot, of a task scan registered
// from a crontab line (lineTask).
func (l *lifecycle) lineFireUnread(f fire) bool {
	r := l.req
	return r.Schedule == nil && l.sched == nil && f.slot.IsZero() && !f.byHand && !r.Manual &&
		r.Slot.IsZero() && r.ReplaySlot.IsZero() && r.FireSlot.IsZero() && lineTask(l.m, r.Task)
}
