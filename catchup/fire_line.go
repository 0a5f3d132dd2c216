package catchup

// A fire of a crontab line's task learns an edit of its line (docs/slots.md,
// "A crontab line edited between scans").

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// lineSource returns the crontab file a task registered by scan --crontab
// was found in (its source crontab:PATH:LINE); "" for any other task, and
// for one found on stdin.
func lineSource(source string) string {
	src, ok := strings.CutPrefix(source, "crontab:")
	if !ok {
		return ""
	}
	if i := strings.LastIndex(src, ":"); i >= 0 {
		return src[:i]
	}
	return ""
}

// lineFireOffSchedule reports whether a fire at now of a task with schedule
// s is one its registered schedule does not explain: not cron-shaped (its
// minute is not the schedule's), not early for a slot, nor early for a
// minute of the schedule that is no slot (earlyForMinute: cron's second
// fire of a fall-back hour's wall time, read by a clock that lags). Such a fire of a
// crontab line's task is a late fire of its slot or a fire of a line edited
// since the last scan, which only the line tells apart.
func lineFireOffSchedule(s *schedule.Schedule, now time.Time) bool {
	if s == nil || s.Matches(now) || earlyForMinute(s, now) {
		return false
	}
	next, ok := s.Next(now)
	return !ok || next.Sub(now) > earlyFire
}

// relearnLine re-reads the line of a crontab line's task when its fire
// (without --cron, of the clock) is off its registered schedule: when the
// line's schedule or zone, as cron reads it, is no longer the registered
// one, the task is registered as the line says, as scan --crontab would,
// and the fire stands for a slot of the new schedule; it is never folded
// into a slot of the old one. A line that cannot be read leaves the fire a
// late fire of the registered schedule, and says so when it is late beyond
// --tolerance.
func (l *lifecycle) relearnLine(ctx context.Context) {
	t, req := l.registered, l.req
	if t == nil || req.Schedule != nil || !req.ReplaySlot.IsZero() || !req.FireSlot.IsZero() || req.Manual || !req.Slot.IsZero() {
		return
	}
	path := lineSource(t.Source)
	if path != "" {
		markLineTask(l.m, t.Name, path, false) // for its twin while the ledger fails (one lstat once made)
	}
	now := l.m.Now()
	if path == "" || !lineFireOffSchedule(l.sched, now) {
		return
	}
	cts := newCrontabs(l.m)
	se, sr, _, changed, err := cts.lineEdit(ctx, l.st, *t)
	var why string
	switch {
	case sr != nil:
		why = sr.err.Error()
	case err != nil:
		why = err.Error()
	case !changed:
		if twin, ok := cts.twinLine(*t, se, now); ok {
			// A second line naming the task, which scan refuses: its fire
			// must not run as, or settle, a slot of the registered line.
			l.refused = fmt.Errorf("task %s: this fire is at a time of %s:%d, which names task %s too but is not its line %s:%d "+
				"(scan refuses it): not running it as a slot of that line; give the line its own --task",
				t.Name, twin.File, twin.Line, t.Name, se.path, se.Line)
			return
		}
		return // the line is unchanged: a late fire of its slot
	default:
		why = l.registerLine(ctx, se)
	}
	if why == "" {
		return
	}
	if prev, ok := l.sched.Prev(now); ok && now.Sub(prev) > req.Tolerance {
		l.m.notice("task %s: this fire is not at a time of its registered schedule %q in %s, and its line cannot be re-read (%s): "+
			"it stands for slot %s as a late fire; if the line was edited, catchup scan --crontab %s registers it",
			t.Name, t.Schedule, t.TZ, why, formatSlot(prev, l.sched), path)
	}
}

// registerLine registers the task as its re-read line se says, and reads
// the new registration back as this fire's schedule; why says what failed.
func (l *lifecycle) registerLine(ctx context.Context, se sourcedEntry) (why string) {
	sr, warning, err := registerEntry(ctx, l.st, l.m, se, l.req.Tolerance, false, l.req.NotifyCmd, nil)
	if err != nil {
		return err.Error()
	}
	l.leftAlert = sr.alertLeft // once the fire is over: never before its job
	l.m.notice("%s; this fire stands for the line's schedule", warning)
	l.registered, l.sched = nil, nil
	if err := l.loadRegistered(ctx); err != nil {
		return err.Error()
	}
	return ""
}

// lineCountsFrom is countsFrom for the registration of an edited line, and
// for a fire's (fire: the fire re-read its line and registers it) no later
// than just before the slot of s the fire stands for (slotAtStart: early
// for it, or within tol), which it then claims and runs. Counted from the
// fire's now, the watermark lay past that slot: a run of it cut short (a
// power cut) read as passed by ls --missed, explain, metrics and calendar,
// until a scan found the run dead and took the watermark back.
func lineCountsFrom(s *schedule.Schedule, now time.Time, tol time.Duration, spared []time.Time, fire bool) time.Time {
	from := countsFrom(now, spared)
	if !fire || s == nil {
		return from
	}
	if slot, ok := slotAtStart(s, now, tol); ok && slot.Add(-time.Second).Before(from) {
		return slot.Add(-time.Second)
	}
	return from
}
