package catchup

import (
	"context"
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
// line's), so nothing changes there.
func (l *lifecycle) rescheduled(ctx context.Context, expr, tz string, from time.Time) {
	old := l.registered
	if old == nil || old.Schedule == "" || (old.Schedule == expr && old.TZ == tz) || strings.HasPrefix(old.Source, "crontab:") {
		return
	}
	if !old.PausedAt.IsZero() {
		// The slots of its pause under the old schedule before this fire's
		// that no scan has recorded yet are recorded paused now, as a scan
		// would have: the new watermark passes them, and resume
		// --replay-paused gives them back, to be recorded expired
		// (schedule-changed) by the next scan, whether or not a scan ran
		// during the pause. The fire records its own slot.
		if _, err := recordEndedPause(ctx, l.st, l.m, *old, from); err != nil {
			l.m.notice("task %s: cannot record the slots of its pause under the old schedule: %v", l.req.Task, err)
		}
	}
	msg := scheduleChange(l.req.Task, *old, "", expr, tz) + ": it counts from this fire"
	if l.req.ZoneNotTZ != "" && tz != old.TZ && old.Schedule == expr && schedule.SameZone(old.TZ, l.req.ZoneNotTZ) {
		// An older catchup registered the TZ the fire was given.
		msg = fmt.Sprintf("task %s: registered in %s, the TZ of an earlier fire; cron fires it in %s (/etc/localtime): "+
			"registered in %s from this fire on", l.req.Task, old.TZ, tz, tz)
	}
	left, err := expireLeftBehind(ctx, l.st, l.m, *old, expr, tz, l.req.NotifyCmd, from, nil, false)
	l.leftAlert = left.alert // once the job has ended: the alert never holds the job back
	switch {
	case err != nil && len(left.slots) > 0:
		msg += fmt.Sprintf(", and the slots missed under the old one could not be recorded expired (%v): they are not looked for", err)
	case err != nil:
		msg += fmt.Sprintf(", and the slots missed under the old one could not be read (%v): they are not looked for", err)
	case len(left.slots) > 0:
		msg += ", and " + left.describe(false, "under the old one", store.ReasonScheduleChanged)
	}
	if len(left.slots) > 0 {
		msg += fmt.Sprintf("; catchup backfill --task %s --from %s --to %s runs the new one's slots in that gap",
			l.req.Task, rfc(left.since), rfc(from.Add(-time.Second)))
	}
	l.m.notice("%s", msg)
}
