package catchup

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/catchup/catchup/store"
)

// A fire records this host's notes of unrecorded fires before it looks at
// its slot, as scan does before it replays: a run of the slot whose
// outcome, or whose whole fire, is noted (the ledger was full or could
// not be reached) is then in the ledger, and a later fire of that slot (a
// twin in the same minute, a late one, run --slot) finds it done instead
// of running it a second time. Without notes this costs one failed lstat
// per notes file.

// notesFirst records the notes when there are any, and reports whether a
// note this host still keeps (the ledger is still failing) holds fire f's
// slot against it (notedHolder): the fire then runs nothing. A scan's or
// backfill's replay records none (its scan recorded them before it
// planned), but looks for one noted since (notedSincePlanned).
func (l *lifecycle) notesFirst(ctx context.Context, f fire) (held bool) {
	slot := f.slot
	if slot.IsZero() || !hasNotes(l.m) {
		return false
	}
	if !l.req.ReplaySlot.IsZero() {
		return l.notedSincePlanned(ctx, f)
	}
	// A fault leaves notes kept (returned): the fire meets that fault next.
	notes, _, err := recordNotes(ctx, l.st, l.m, l.req.Tolerance, "this fire")
	if err != nil {
		l.m.notice("task %s: %v", l.req.Task, err)
		return false
	}
	if notes == nil {
		return false // all recorded: the ledger tells the rest
	}
	runs, err := l.st.SlotRuns(ctx, l.req.Task, slot.Add(-time.Second), slot, l.req.Tolerance)
	if err != nil {
		return false
	}
	return l.notedHolder(notes, runs, f)
}

// notedHolder reports, and says, whether a note of notes holds fire f's
// slot against it, as a record of the ledger would (holder): the outcome
// of one of runs (the slot's records), or a fire of the task that ran
// unrecorded, that succeeded (unless --force, which runs a succeeded slot
// again, as its claim would be granted); or, against the slot's own cron fire
// (ownFire: a twin in the minute, the second fire of a wall time in a
// fall-back hour) unless --force, one that failed or timed out, so that a
// failing job runs once per slot while the ledger fails too (R13). A fire
// by hand (--slot) of a failed slot runs it again, as its claim would be
// granted. A fire that cannot open its ledger at all asks it too, with no
// records (runs nil), before it runs unrecorded. A held fire leaves no
// note: the next scan counts the slot once, by the note that holds it.
func (l *lifecycle) notedHolder(notes *pendingNotes, runs []store.Run, f fire) bool {
	slot := f.slot
	failedHolds := f.scheduled && !l.req.Force && l.ownFire(slot)
	for _, r := range notes.runs(runs, l.req.Task, l.sched, knownFrom(l.registered, l.sched), slot.Add(-time.Second), slot, l.req.Tolerance) {
		if !r.Slot.Equal(slot) || !notes.unrecorded(r) {
			continue
		}
		switch {
		case r.Status == store.StatusSucceeded && !l.req.Force: // --force runs it again, as with the ledger
			l.m.notice("task %s: slot %s ran and succeeded at %s, noted on this host while the ledger failed: not run again; "+
				"the next scan records it", l.req.Task, formatSlot(slot, l.sched), rfc(r.StartedAt))
			return true
		case failedHolds && (r.Status == store.StatusFailed || r.Status == store.StatusTimeout):
			l.m.notice("task %s: slot %s ran and %s at %s, noted on this host while the ledger failed: "+
				"this fire is a duplicate of it, not run again (%s); the next scan records that one",
				l.req.Task, formatSlot(slot, l.sched), notedOutcome(r.Status), rfc(r.StartedAt), againHint(r))
			return true
		}
	}
	return false
}

// notedSincePlanned reports, and says, whether a note this host keeps says
// that replay f's slot ran: a fire of it whose outcome, or whose whole
// fire, was noted as it ended (the disk full, the ledger file replaced),
// after the replay's scan had recorded the notes and planned, holding the
// task's lock that the replay has now taken. Its slot read missed to the
// scan (no claim in a backup restored) or its run dead (running, the lock
// free); the replay runs nothing, and the next scan records the note and
// goes by what it says (a failure is retried only under its rule).
func (l *lifecycle) notedSincePlanned(ctx context.Context, f fire) bool {
	runs, err := l.st.SlotRuns(ctx, l.req.Task, f.slot.Add(-time.Second), f.slot, l.req.Tolerance)
	if err != nil {
		return false // the claim meets the fault
	}
	notes := readPendingNotes(l.m)
	for _, r := range notes.runs(runs, l.req.Task, l.sched, knownFrom(l.registered, l.sched), f.slot.Add(-time.Second), f.slot, l.req.Tolerance) {
		if r.Slot.Equal(f.slot) && notes.unrecorded(r) && r.Status != store.StatusSkipped && r.Status != store.StatusRunning {
			l.m.notice("task %s: slot %s ran at %s, and its outcome was noted on this host since this scan read the notes: "+
				"not replayed; the next scan records it", l.req.Task, formatSlot(f.slot, l.sched), rfc(r.StartedAt))
			return true
		}
	}
	return false
}

// notedOutcome words a noted run's status as "ran and ...".
func notedOutcome(status string) string {
	if status == store.StatusTimeout {
		return "timed out"
	}
	return status
}

// hasNotes reports whether this host keeps notes of unrecorded fires for
// m's ledger, in its lock directory or in the spare note directory. A
// path through a file that is no directory (ENOTDIR: a ledger path under
// a file) holds none.
func hasNotes(m Machine) bool {
	for _, p := range notesPaths(m) {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return true
		}
	}
	return false
}
