package catchup

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// silence knows when each task last had a fire of its own (trigger
// schedule; replays do not count), and when cron was last seen firing any
// task: a task is silent only while cron fires the others, so that an
// outage (every task silent) raises no flag.
type silence struct {
	last map[string]time.Time
	cron time.Time
	// up is when this host was up, read once when a task is first found
	// possibly silent (nil in tests: up all along).
	up func() (uptime, bool)
	// lines, when set, reads a task's schedule as a reader does: by root,
	// its zone file as its task's user (readerSchedule).
	lines *crontabs
}

// readBy makes s read tasks' schedules as a reader with lines does.
func (s *silence) readBy(lines *crontabs) {
	if s != nil {
		s.lines = lines
	}
}

// newSilence reads the last fire of every task (in one read: LastFires),
// for the warnings of the tasks that could have one (mayBeSilent): none
// when no task does, so that a scan of a crontab's or daemon's tasks (the
// daemon scans each of its tasks on its own, every rescan) reads no other
// task's history. A nil silence warns of nothing.
func newSilence(ctx context.Context, st store.Store, m Machine, tasks []store.Task) (*silence, error) {
	if !slices.ContainsFunc(tasks, mayBeSilent) {
		return nil, nil
	}
	last, err := st.LastFires(ctx)
	if err != nil {
		return nil, err
	}
	s := &silence{last: last}
	s.up = sync.OnceValues(func() (uptime, bool) {
		u, err := newBootCache(st, m).uptime(ctx, []string{m.Host})
		return u, err == nil // unread: every slot counts as up, as before
	})
	for _, at := range last {
		if at.After(s.cron) {
			s.cron = at
		}
	}
	return s, nil
}

// mayBeSilent reports whether a warning may flag t: a task registered by
// `run --cron`, with a schedule, not retired (whether it is paused is
// asked when warning).
func mayBeSilent(t store.Task) bool {
	return isRunSource(t.Source) && t.Schedule != "" && t.RetiredAt.IsZero()
}

// warning flags a task registered by `run --cron` whose first slot after
// its last fire of its own (else after its registration) came longer than
// its catch-up window ago, while cron fired other tasks since then: its line
// may be gone, and scan would replay it forever. A task whose next slot has
// not come, or came only lately, is not silent, however long ago it fired
// (a daily task with --max-age 12h, a monthly one with the default 7d):
// such a task was told to run catchup forget. It returns "" for any other
// task, and for a schedule that does not parse (said elsewhere).
func (s *silence) warning(t store.Task, now time.Time, rule MissedRule) string {
	if s == nil || !mayBeSilent(t) || Paused(t, now) {
		return ""
	}
	last := s.last[t.Name]
	since := ""
	if last.IsZero() {
		last = t.RegisteredAt
		since = silentSinceRegistration(t)
	}
	window := catchupWindow(t, rule)
	if now.Sub(last) <= window || s.cron.Sub(last) <= window {
		return "" // its first slot after last is later still: no schedule read for most tasks
	}
	read := parseSchedule
	if s.lines != nil {
		read = func(string, string) (*schedule.Schedule, error) { return s.lines.readerSchedule(t) }
	}
	sched, err := read(t.Schedule, t.TZ)
	if err != nil || sched == nil {
		return ""
	}
	until := now
	if s.cron.Before(until) {
		until = s.cron
	}
	due, ok := s.firstUp(sched, last, until.Add(-window))
	if !ok || now.Sub(due) <= window || s.cron.Sub(due) <= window {
		return ""
	}
	if since == "" {
		since = "no fire since " + last.UTC().Format(time.RFC3339) + " ("
	}
	return fmt.Sprintf("%smore than its catch-up window, %s), while cron fired other tasks; "+
		"is its line gone? catchup forget %s", since, FormatDuration(window), t.Name)
}

// silentSinceRegistration opens the warning of a task with no fire left in
// the ledger whose runs of slots after its registration were pruned: a
// fire may have been among them (a prune by a catchup that did not keep
// each task's latest fire), so its registration is when no fire was
// recorded since, not its last fire. "" for a task never so pruned.
func silentSinceRegistration(t store.Task) string {
	if !t.PrunedThrough.After(t.RegisteredAt) {
		return ""
	}
	return fmt.Sprintf("no fire recorded since its registration at %s (its runs of slots up to %s were pruned: "+
		"a later fire may have been among them; ", t.RegisteredAt.UTC().Format(time.RFC3339), t.PrunedThrough.UTC().Format(time.RFC3339))
}

// firstUp is the first slot of sched after last, up to until, that came
// while this host was up (a boot of it covers the slot), or one the boots
// cannot tell of (none known yet then): a slot of an outage is no sign of
// a line gone, though cron fires other tasks once the host is back.
func (s *silence) firstUp(sched *schedule.Schedule, last, until time.Time) (time.Time, bool) {
	var u uptime
	known := false
	if s.up != nil {
		u, known = s.up()
	}
	for i, at := 0, last; i < maxSilentSlots; i++ {
		slot, ok := sched.Next(at)
		if !ok || slot.After(until) {
			return time.Time{}, false
		}
		if _, up := u.covering(slot); !known || up || u.earliest.IsZero() || slot.Before(u.earliest) {
			return slot, true
		}
		at = slot
	}
	return time.Time{}, false
}

// maxSilentSlots bounds the slots firstUp looks at: an outage of a week of
// a task fired every minute is 10,080.
const maxSilentSlots = 20000
