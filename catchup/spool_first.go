package catchup

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
// note this host still keeps (the ledger is still failing) says that a run
// of slot succeeded: the fire then runs nothing. A scan's or backfill's
// replay does not look: its scan recorded the notes before it planned.
func (l *lifecycle) notesFirst(ctx context.Context, slot time.Time) (ranUnrecorded bool) {
	if slot.IsZero() || !l.req.ReplaySlot.IsZero() || !hasNotes(l.m) {
		return false
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
	return l.notedSuccess(notes, runs, slot)
}

// notedSuccess reports, and says, whether a note of notes gives slot a
// success: the outcome of one of runs (the slot's records), or a fire of
// the task that ran unrecorded. A fire that cannot open its ledger at all
// asks it too, with no records (runs nil), before it runs unrecorded.
func (l *lifecycle) notedSuccess(notes *pendingNotes, runs []store.Run, slot time.Time) bool {
	for _, r := range notes.runs(runs, l.req.Task, l.sched, slot.Add(-time.Second), slot, l.req.Tolerance) {
		if r.Slot.Equal(slot) && r.Status == store.StatusSucceeded && notes.unrecorded(r) {
			l.m.notice("task %s: slot %s ran and succeeded at %s, noted on this host while the ledger failed: not run again; "+
				"the next scan records it", l.req.Task, formatSlot(slot, l.sched), rfc(r.StartedAt))
			return true
		}
	}
	return false
}

// hasNotes reports whether this host keeps notes of unrecorded fires for
// m's ledger, in its lock directory or in the spare note directory.
func hasNotes(m Machine) bool {
	paths := []string{filepath.Join(m.LockDir, spoolName)}
	if spare, ok := spareNotes(m); ok {
		paths = append(paths, spare)
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}
