package catchup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// scheduleChange is how scan, the daemon and a fire say that task's
// registered schedule (old) gives way to expr in tz; whose names the new
// one's source ("the line's "), or is empty.
func scheduleChange(task string, old store.Task, whose, expr, tz string) string {
	return fmt.Sprintf("task %s's schedule changes from %q in %s to %s%q in %s", task, old.Schedule, old.TZ, whose, expr, tz)
}

// rescheduled says, once, that this --cron fire changes its task's
// registered schedule or zone to expr in tz, counting from (the new
// watermark is a second before it): the slots missed under the old one are
// not looked for from now on. It records them expired (schedule-changed),
// every old slot before this fire's (expireLeftBehind), before the claim
// that registers the change: a fire whose claim then fails leaves them
// recorded, and the line's next fire changes the schedule all the same.
// The task's missed-slot alert for them runs once the fire is over
// (leftAlert). It names the backfill that runs the span in the new schedule.
// A task read from a crontab keeps its registration (scan's is the
// line's), so nothing changes there. locked says that the fire holds the
// task's lock.
func (l *lifecycle) rescheduled(ctx context.Context, expr, tz string, from time.Time, locked bool) {
	old := l.registered
	if !reschedules(old, expr, tz) {
		return
	}
	head := scheduleChange(l.req.Task, *old, "", expr, tz) + ": it counts from this fire"
	if l.req.ZoneNotTZ != "" && tz != old.TZ && old.Schedule == expr && schedule.SameZone(old.TZ, l.req.ZoneNotTZ) {
		// An older catchup registered the TZ the fire was given.
		head = fmt.Sprintf("task %s: registered in %s, the TZ of an earlier fire; cron fires it in %s (/etc/localtime): "+
			"registered in %s from this fire on", l.req.Task, old.TZ, tz, tz)
	}
	if locked {
		// A run of the task that died (its catchup and its job gone) is
		// marked interrupted first, so that its slot is among the old
		// schedule's missed: the readers try the task's lock to tell a
		// dead run from a live one, this fire holds it, and the change's
		// watermark would pass the slot without a word.
		if _, err := staleOfTaskHolding(ctx, l.st, l.m, l.req.Task, true, l.req.Task); err != nil {
			l.m.notice("task %s: cannot tell whether its running records are alive: %v", l.req.Task, err)
		}
	}
	msg, alert := leaveSchedule(ctx, l.st, l.m, *old, expr, tz, l.req.NotifyCmd, from, head)
	l.leftAlert = alert // once the job has ended: the alert never holds the job back
	l.m.notice("%s", msg)
}

// reschedules reports whether registering expr in tz changes registration
// old's schedule (names already resolved: ExprName, ZoneName): a task
// with a schedule, not read from a crontab (scan's is the line's).
func reschedules(old *store.Task, expr, tz string) bool {
	return old != nil && old.Schedule != "" && (old.Schedule != expr || old.TZ != tz) && !strings.HasPrefix(old.Source, "crontab:")
}

// leaveSchedule is what a change of task old's schedule to expr in tz,
// counting from from, does before the registration that makes it (a
// fire's claim, or scan registering a fire note's: rescheduleNoted):
// the slots of its pause under the old schedule before from are recorded
// paused, the old schedule's missed slots before from are recorded
// expired (expireLeftBehind), and the notice that starts with head says
// so. alert runs the task's missed-slot alert for them (notify, else the
// task's own), when the caller may wait for it.
func leaveSchedule(ctx context.Context, st store.Store, m Machine, old store.Task, expr, tz, notify string,
	from time.Time, head string) (msg string, alert func()) {
	if !old.PausedAt.IsZero() {
		// The slots of its pause under the old schedule before this fire's
		// that no scan has recorded yet are recorded paused now, as a scan
		// would have: the new watermark passes them, and resume
		// --replay-paused gives them back, to be recorded expired
		// (schedule-changed) by the next scan, whether or not a scan ran
		// during the pause. The fire records its own slot.
		if _, err := recordPauseOf(ctx, st, m, old, from, store.OfLive(old.RegisteredAt)); err != nil &&
			!errors.Is(err, store.ErrGone) && !errors.Is(err, store.ErrRetired) { // said below
			m.notice("task %s: cannot record the slots of its pause under the old schedule: %v", old.Name, err)
		}
	}
	msg = head
	left, err := expireLeftBehind(ctx, st, m, old, expr, tz, notify, from, nil, nil, false)
	switch {
	case errors.Is(err, store.ErrGone):
		return fmt.Sprintf("%s; task %s was forgotten since this fire read it (catchup forget --purge): "+
			"none of the old schedule's slots recorded, and the fire registers it anew", head, old.Name), func() {}
	case errors.Is(err, store.ErrRetired):
		// Forget recorded them (reason retired), or named those the line
		// might still fire; the fire's claim registers the task anew from
		// the fire, as a fire after the forget does (guarantees T1).
		return fmt.Sprintf("%s; task %s was retired since this fire read it (catchup forget, or its line gone): "+
			"none of the old schedule's slots recorded, and the fire registers it anew", head, old.Name), func() {}
	case err != nil && len(left.slots) > 0:
		msg += fmt.Sprintf(", and the slots missed under the old one could not be recorded expired (%v): they are not looked for", err)
	case err != nil:
		msg += fmt.Sprintf(", and the slots missed under the old one could not be read (%v): they are not looked for", err)
	case len(left.slots) > 0:
		msg += ", and " + left.describe(false, "under the old one", store.ReasonScheduleChanged)
	case left.aheadNote() != "":
		// The clock is behind the ledger: the old schedule's missed slots
		// are not known, and the new watermark passes them; say so, as
		// scan and forget do, never without a word.
		msg += "; " + left.aheadNote()
	}
	if len(left.slots) > 0 {
		msg += fmt.Sprintf("; catchup backfill --task %s --from %s --to %s runs the new one's slots in that gap",
			old.Name, rfc(left.since), rfc(from.Add(-time.Second)))
	}
	return msg, left.alert
}
