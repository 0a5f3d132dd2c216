package catchup

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// errNotASlot says that shown (t, as the error shows it) is not a slot of
// sched, and names the slots around t in the schedule's zone: for a wall
// time a DST change skipped or repeated, the slot it meant is among them;
// and where the slots are listed: a past range's by backfill --dry-run,
// those to come (t after now) by catchup next, backfill refusing them.
func errNotASlot(shown string, t, now time.Time, sched *schedule.Schedule) error {
	var near []string
	if p, ok := sched.Prev(t); ok && p.After(time.Time{}) { // the zero time is no slot (cmd's parseSlot)
		near = append(near, schedule.RFC3339(p, sched.Location()))
	}
	if n, ok := sched.Next(t); ok {
		near = append(near, schedule.RFC3339(n, sched.Location()))
	}
	hint := "catchup backfill --dry-run --only all lists a range's slots"
	if t.After(now) {
		hint = fmt.Sprintf("catchup next %q --tz %s lists the slots to come", sched.Expr(), shellWord(sched.Location().String()))
	}
	switch len(near) {
	case 2:
		hint = fmt.Sprintf("the nearest slots are %s and %s (%s)", near[0], near[1], hint)
	case 1:
		hint = fmt.Sprintf("the nearest slot is %s (%s)", near[0], hint)
	}
	return fmt.Errorf("%s is not a slot of %q in %s%s; %s", shown, sched.Expr(), sched.Location(), wallTimeNote(t, sched.Location()), hint)
}

// wallTimeNote tells, for t written as a wall time of loc (in an offset
// loc uses within two days of it: a clock change is months from the next),
// that loc skipped that wall time or read it twice that day, so that the
// nearest slots make sense; "" for a wall time that occurred once, or for
// t written in another offset (UTC for New York), no wall time of loc.
func wallTimeNote(t time.Time, loc *time.Location) string {
	_, written := t.Zone()
	var offsets []int // loc's offsets around t, each once
	for _, d := range []time.Duration{-48 * time.Hour, 0, 48 * time.Hour} {
		if _, o := t.Add(d).In(loc).Zone(); !slices.Contains(offsets, o) {
			offsets = append(offsets, o)
		}
	}
	if !slices.Contains(offsets, written) {
		return ""
	}
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	var readAt []int // the offsets at which loc read this wall time
	for _, o := range offsets {
		at := time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.FixedZone("", o))
		if _, got := at.In(loc).Zone(); got == o {
			readAt = append(readAt, o)
		}
	}
	wall := fmt.Sprintf("%02d:%02d", h, mi)
	if s != 0 {
		wall += fmt.Sprintf(":%02d", s)
	}
	day := fmt.Sprintf("%04d-%02d-%02d", y, mo, d)
	switch len(readAt) {
	case 0:
		return fmt.Sprintf(" (%s on %s did not occur there: a clock change skipped it)", wall, day)
	case 2:
		slices.Sort(readAt) // the larger offset read it first
		return fmt.Sprintf(" (%s on %s came twice there, at %s and at %s)", wall, day, utcOffset(readAt[1]), utcOffset(readAt[0]))
	}
	return ""
}

// utcOffset is an offset in seconds east of UTC as RFC 3339 writes it.
func utcOffset(o int) string {
	return time.Date(2000, 1, 1, 0, 0, 0, 0, time.FixedZone("", o)).Format("-07:00")
}

// checkSlot refuses an explicit --slot, or a replay's slot
// (CATCHUP_REPLAY_SLOT), that the task never stands for, and either to come.
func (l *lifecycle) checkSlot() error {
	if r := l.req.ReplaySlot; r.After(l.m.Now()) {
		// A replay's slot is past when scan or backfill reads it: one to
		// come (set by hand, or a clock stepped back since) would stop
		// scan as --slot's would.
		return fmt.Errorf("CATCHUP_REPLAY_SLOT %s is in the future: catchup only runs slots that have come", r.Format(time.RFC3339))
	}
	if r := l.req.ReplaySlot; !r.IsZero() && l.sched != nil {
		// Scan and backfill set only slots of the task's schedule: another
		// instant (set by hand) is refused as --slot's is, not recorded as
		// a replay of a slot the task never had.
		if p, ok := l.sched.Prev(r); !ok || !p.Equal(r) {
			return errNotASlot("CATCHUP_REPLAY_SLOT "+r.Format(time.RFC3339Nano), r, l.m.Now(), l.sched)
		}
	}
	if l.req.Slot.IsZero() {
		return nil
	}
	if l.req.Slot.After(l.m.Now()) {
		// A slot from the future would look like a clock that went back,
		// and stop scan from replaying the task until then.
		return fmt.Errorf("--slot %s is in the future: catchup only runs slots that have come", l.req.Slot.Format(time.RFC3339))
	}
	if l.sched == nil {
		return nil
	}
	if p, ok := l.sched.Prev(l.req.Slot); !ok || !p.Equal(l.req.Slot) {
		// RFC3339Nano: a fraction of a second is what makes such a slot none.
		return errNotASlot("--slot "+l.req.Slot.Format(time.RFC3339Nano), l.req.Slot, l.m.Now(), l.sched)
	}
	return nil
}

// shellWord is s as a shell word: as it is when it holds only characters
// no shell reads specially (a zone name), else double-quoted.
func shellWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/_+-.:,", r)) {
			return strconv.Quote(s)
		}
	}
	return s
}
