package catchup

// The readers say what the next plain scan does with a crontab line
// edited or removed since its task was registered (docs/slots.md, "A
// crontab line edited between scans").

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// LineLeft says why the next scan replays none of a task's missed slots:
// it re-reads the task's crontab line first (lineReplay), and registers
// the line, edited in its schedule or zone as cron reads them, or retires
// the task, whose line is gone (retireGone); either records the slots the
// line leaves behind expired, a recent one too (no fire of the old line
// comes: cron reads its crontab again before it fires), with the task's
// alert. The readers count those slots missed, as they count any slot
// until the scan that records it expired, and each expiring, with the
// scan's reason.
type LineLeft struct {
	// What is the change in a word, for ls --missed's CAUSE: "line
	// edited", "line removed".
	What string
	// Reason is the reason each slot is recorded expired with, as the
	// scan records it (the code aside: Code).
	Reason, Code string
	// Warning says what the next scan does with the slots, for the
	// readers' warning ("task T: " before it).
	Warning string
	slots   []time.Time // oldest first
	causes  []string    // in step
}

// has reports whether the next scan records slot expired, and why it
// was missed.
func (l *LineLeft) has(slot time.Time) (cause string, ok bool) {
	if l == nil {
		return "", false
	}
	i, found := slices.BinarySearchFunc(l.slots, slot, func(a, b time.Time) int { return a.Compare(b) })
	if !found {
		return "", false
	}
	if i < len(l.causes) {
		cause = l.causes[i]
	}
	return cause, true
}

// lineLeftOf is what the next plain scan, which re-reads task t's crontab
// line (lineReplay), does with the slots t missed, when it registers that
// line edited in its schedule or zone, or retires t, its line gone: nil
// when the scan replays them as t reads them (the line unchanged, or
// edited in its command alone, which the replays run; or a line it cannot
// read or register, which it says, or whose crontab's directory is
// missing: dirMissing), or when it records none expired (the ledger ahead
// of the clock, this host's notes refused: the readers say so already).
// The line is read through c (each crontab once); only an edited or
// removed line reads the ledger, a few reads for its task (registerEntry's
// dry run, expireMissed), never one per slot.
func (c *crontabs) lineLeftOf(ctx context.Context, st store.Store, t store.Task) (*LineLeft, error) {
	if t.Shell == "" || !t.RetiredAt.IsZero() || t.Schedule == "" || lineSource(t.Source) == "" {
		return nil, nil
	}
	se, sr := c.findLine(t)
	if sr != nil {
		if sr.gone == "" || dirMissing(t.Name, sr.gone) != nil {
			return nil, nil
		}
		why := expiry{reason: fmt.Sprintf(reasonLineGone, sr.gone), code: store.ReasonRetired}
		lb, err := expireMissed(ctx, st, c.m, t, why, "", leftAt(c.m.Now()), nil, true)
		if err != nil || len(lb.slots) == 0 {
			return nil, err
		}
		return &LineLeft{What: "line removed", Reason: why.reason, Code: why.code, slots: lb.slots, causes: lb.causes,
			Warning: fmt.Sprintf("its line is gone from %s: the next scan retires it and %s", sr.gone, expiresNone(lb, why.code))}, nil
	}
	zone, zerr := lineZoneReader(c.m, se).lineZoneAs(c.m, se.Entry) // another user's zone file as that user
	if zerr == nil && !lineChanges(t, se.Expr, zone) {
		return nil, nil // no ledger read: the scan registers nothing
	}
	reg, _, err := registerEntry(ctx, st, c.m, se, c.tolerance, true, "", &t)
	if err != nil || len(reg.left.slots) == 0 {
		// Refused (the scan says why, and replays as t reads it, or leaves
		// the task unscanned), or nothing left behind.
		return nil, nil
	}
	next := reg.task
	return &LineLeft{What: "line edited", Code: store.ReasonScheduleChanged,
		Reason: fmt.Sprintf(reasonLeftByChange, t.Schedule, t.TZ, next.Schedule, next.TZ),
		slots:  reg.left.slots, causes: reg.left.causes,
		Warning: fmt.Sprintf("its line at %s:%d changes its schedule from %q in %s to %q in %s: the next scan registers it and %s",
			se.path, se.Line, t.Schedule, t.TZ, next.Schedule, next.TZ, expiresNone(reg.left, store.ReasonScheduleChanged))}, nil
}

// expiresNone says that the slots lb left behind are recorded expired
// (code), none replayed.
func expiresNone(lb leftByChange, code string) string {
	what := fmt.Sprintf("its %d missed slots", len(lb.slots))
	if len(lb.slots) == 1 {
		what = "its missed slot"
	}
	return fmt.Sprintf("records %s expired (%s), replaying none", what, code)
}

// leftMissed is a task's missed slots res as the readers count them when
// its line left them behind (left): those the next scan records expired
// (with the slots owed to an older schedule still, res.offSchedule), all
// expiring; res itself else.
func leftMissed(res missed, left *LineLeft) (slots []time.Time, causes []string, expiring int) {
	if left == nil {
		// As scan expires them: those older than the window, and those
		// owed to an older schedule (schedule-changed).
		slots, causes = res.counted()
		return slots, causes, res.expiring + len(res.offSchedule)
	}
	res.slots, res.causes = left.slots, left.causes
	slots, causes = res.counted()
	return slots, causes, len(slots)
}
