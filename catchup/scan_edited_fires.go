package catchup

import (
	"context"
	"slices"

	"github.com/catchup/catchup/store"
)

// editedLinesFires is, for a scan, editedLineFires of every registered
// crontab line that it re-reads after it records this host's notes (a
// plain scan's lineReplay: the lines of tasks not given by --crontab, or
// of those named), and whose line changed: the notes of such a line's own
// fires, which the scan leaves for the line's registration to record,
// after the change (registerEntry), never before it under the old
// schedule. Only a task with a note the registered schedule does not
// explain has its line re-read here. Nil when there is none.
func (c *crontabs) editedLinesFires(ctx context.Context, st store.Store, names []string,
	replays map[string]*shellReplay) func(spoolEntry) bool {
	if !hasNotes(c.m) {
		return nil
	}
	m := c.m
	m.Notice = nil // read quietly: the scan's import says what is wrong with them
	decided := map[string]bool{}
	edited := map[string]func(spoolEntry) bool{}
	for _, e := range readPendingNotes(m).fires {
		if decided[e.Task] || replays[e.Task] != nil || (len(names) > 0 && !slices.Contains(names, e.Task)) ||
			!e.Slot.IsZero() || e.ByHand || e.Register != nil {
			continue
		}
		t, err := st.Task(ctx, e.Task)
		s, serr := storedSchedule(m, c, t)
		if err != nil || t.Shell == "" || !t.RetiredAt.IsZero() || serr != nil || s == nil {
			decided[e.Task] = true
			continue
		}
		if !lineFireOffSchedule(s, e.StartedAt) {
			continue // a fire of the registered schedule; a later one may not be
		}
		decided[e.Task] = true
		if se, sr, next, changed, err := c.lineEdit(ctx, st, t); sr == nil && err == nil && changed {
			edited[e.Task] = editedLineFires(m, t, next.Schedule, next.TZ, lineZoneReader(m, se, next.TZ))
		}
	}
	if len(edited) == 0 {
		return nil
	}
	return func(e spoolEntry) bool { f := edited[e.Task]; return f != nil && f(e) }
}
