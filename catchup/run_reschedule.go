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
// not looked for from now on. It counts them as ls does, and names the
// backfill that runs the span in the new schedule. A task read from a
// crontab keeps its registration (scan's is the line's), so nothing
// changes there.
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
		if err := recordEndedPause(ctx, l.st, l.m, *old, from); err != nil {
			l.m.notice("task %s: cannot record the slots of its pause under the old schedule: %v", l.req.Task, err)
		}
	}
	msg := scheduleChange(l.req.Task, *old, "", expr, tz) + ": it counts from this fire"
	if l.req.ZoneNotTZ != "" && tz != old.TZ && old.Schedule == expr && schedule.SameZone(old.TZ, l.req.ZoneNotTZ) {
		// An older catchup registered the TZ the fire was given.
		msg = fmt.Sprintf("task %s: registered in %s, the TZ of an earlier fire; cron fires it in %s (/etc/localtime): "+
			"registered in %s from this fire on", l.req.Task, old.TZ, tz, tz)
	}
	if n, first, last, since := l.missedUnder(ctx, *old); n > 0 {
		left := fmt.Sprintf("%d slots missed under the old one (%s to %s) are", n, rfc(first), rfc(last))
		if n == 1 {
			left = fmt.Sprintf("1 slot missed under the old one (%s) is", rfc(first))
		}
		msg += fmt.Sprintf(", and %s not looked for; catchup backfill --task %s --from %s --to %s runs the new one's slots in that gap",
			left, l.req.Task, rfc(since), rfc(from.Add(-time.Second)))
	}
	l.m.notice("%s", msg)
}

// missedUnder counts the slots of task t's registered schedule that ls
// shows missed now (the paused ones aside), with the first and the last,
// and since, where the gap they leave opens: just after the old slot before
// the first (the first itself when there is none). 0 when the schedule no
// longer reads or the ledger does not answer (the change is said all the
// same).
func (l *lifecycle) missedUnder(ctx context.Context, t store.Task) (n int, first, last, since time.Time) {
	s, err := parseSchedule(t.Schedule, t.TZ)
	if err != nil || s == nil {
		return 0, first, last, since
	}
	stale, err := l.staleOf(ctx, t.Name)
	if err != nil {
		return 0, first, last, since
	}
	res, err := missedSlots(ctx, l.st, l.m, t, s, MissedRule{Tolerance: DefaultTolerance}, stale, nil, nil)
	if err != nil {
		return 0, first, last, since
	}
	splitPaused(t, &res)
	if len(res.slots) == 0 {
		return 0, first, last, since
	}
	first, last, since = res.slots[0], res.slots[len(res.slots)-1], res.slots[0]
	if prev, ok := s.Prev(first.Add(-time.Second)); ok && !prev.Before(t.RegisteredAt) {
		since = prev.Add(time.Second) // never before the task was registered
	}
	return len(res.slots), first, last, since
}

// staleOf returns task's running records that cannot be alive, as ls reads
// them (findStale, without writing): a run of a boot that is over, or
// whose catchup and command are gone, counts as missed in the warning as
// it does in ls --missed.
func (l *lifecycle) staleOf(ctx context.Context, task string) (map[int64]bool, error) {
	running, err := l.st.Running(ctx)
	if err != nil {
		return nil, err
	}
	var mine []store.Run
	for _, r := range running {
		if r.Task == task {
			mine = append(mine, r)
		}
	}
	return staleAmong(ctx, l.st, l.m, mine, false)
}
