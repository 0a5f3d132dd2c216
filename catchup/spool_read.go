package catchup

import (
	"cmp"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// The readers (ls, explain, calendar, metrics, scan --dry-run) write
// nothing: they can neither record the notes of unrecorded fires
// (spool.go) nor take them from the next scan. They read them instead,
// from the files importSpool takes them from and with its trust checks,
// and see the ledger as that scan leaves it once it recorded them: a fire
// note is a record after the ledger's (noteRun, its slot found by the rule
// of a run without one), an outcome note the outcome of its run (as
// recordOutcomes gives it). A slot whose fire ran unrecorded is then not
// missed, and one whose fire did not run is missed with its cause,
// ledger-unreachable. Notes a scan has taken (NOTES.PID) while it records
// them, or left there when it was killed (the next scan adopts them), are
// read too (withTaken: one read of the directory): a scan stalled on a
// busy ledger holds them for as long as it stalls, and a slot they say ran
// is no more missed meanwhile (before, ls --missed named it missed, and a
// schedule change recorded it expired beside its note). In the moment
// between a scan's commit and its removal of the taken file, a note may be
// read beside its record: a slot counted run twice, never missed.

// notedRunBase is the id a reader gives the first fire note it read, the
// next ones following: above any id of the ledger, so that, as the record
// the next scan makes of it, a note comes after its slot's records. It is
// never shown: a noted fire has no run id yet.
const notedRunBase = int64(1) << 62

// pendingNotes are the notes this host keeps for the next scan; a nil one
// holds none (scan reads the ledger after recording them).
type pendingNotes struct {
	fires    []spoolEntry         // fire notes, in the order the next scan records them
	outcomes map[int64]spoolEntry // outcome notes by run id
	refused  error                // why a notes file was left out (unreadable, untrusted); nil when none was
}

// readPendingNotes reads the notes the next scan would record, taking,
// moving and writing nothing. Without notes it costs one failed lstat per
// notes file (the lock directory's, the spare one), and one read of the
// spare note directory's parent (its stand-ins). A notes file it cannot
// read or trust is left out, with a notice.
func readPendingNotes(m Machine) *pendingNotes {
	n := &pendingNotes{outcomes: map[int64]spoolEntry{}}
	n.readTaken(m, filepath.Join(m.LockDir, spoolName), func() error { return lockDir(m.LockDir, m.UID, false) })
	dirs, squat := spareDirs(m)
	if squat != nil {
		m.notice("warning: %v", squat)
	}
	for _, dir := range dirs {
		n.readTaken(m, spareNotesIn(m, dir), func() error { return privateDir(dir, m.UID, false) })
	}
	return n
}

// readTaken reads the notes file at path and the notes processes took from
// it (withTaken), when its directory can be searched.
func (n *pendingNotes) readTaken(m Machine, path string, trust func() error) {
	n.read(m, path, trust)
	for _, f := range withTaken(path)[1:] {
		n.read(m, f, trust)
	}
}

// read adds the notes of the file at path, once trust (its directory's
// check, as importSpool makes it) and readSpool accept it. A directory
// this user cannot search is another user's (the ledger's owner, read by
// a monitoring user): no notes there are this user's to record.
func (n *pendingNotes) read(m Machine, path string, trust func() error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return
	}
	err := trust()
	var entries []spoolEntry
	if err == nil {
		entries, err = readSpool(path, m.UID)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return // a taken file its scan removed meanwhile: recorded
	}
	if err != nil {
		m.notice("not counting the notes of unrecorded fires: %v", err)
		n.refused = cmp.Or(n.refused, err)
		return
	}
	n.add(entries)
}

// add adds notes read from a notes file.
func (n *pendingNotes) add(entries []spoolEntry) {
	for _, e := range entries {
		if e.Moved {
			// Its claim, if the file now at the path holds it, takes its
			// outcome (noted); else the note is its slot's fire (runs).
			if _, ok := n.outcomes[e.RunID]; !ok {
				n.outcomes[e.RunID] = e
			}
			n.fires = append(n.fires, e)
			continue
		}
		if e.RunID != 0 {
			if _, ok := n.outcomes[e.RunID]; !ok {
				n.outcomes[e.RunID] = e // the scan records the first; the run has ended for the next
			}
			continue
		}
		n.fires = append(n.fires, e)
	}
}

// runs returns runs, which SlotRuns returned for task (schedule s, known
// under it since known: knownFrom) and [from, to] with grace tolerance, as
// the next scan leaves them: each with the outcome a note holds for it,
// then the records of the task's fire notes in that range, in the order
// that scan records them.
func (n *pendingNotes) runs(runs []store.Run, task string, s *schedule.Schedule, known, from, to time.Time,
	tolerance time.Duration) []store.Run {
	if n == nil {
		return runs
	}
	claimed := map[int64]bool{} // outcome notes whose claim is among runs
	for i := range runs {
		runs[i] = *n.noted(&runs[i])
		if e, ok := n.outcomeOf(runs[i]); ok {
			claimed[e.RunID] = true
		}
	}
	for i, e := range n.fires {
		if e.Task != task || (e.Moved && claimed[e.RunID]) {
			continue
		}
		r := noteRun(e, func(e spoolEntry) time.Time { return noteSlot(s, known, e, tolerance) })
		r.ID = notedRunBase + int64(i)
		in := !r.Slot.Before(from) && !r.Slot.After(to)
		if r.Slot.IsZero() {
			in = !r.StartedAt.Before(from) && !r.StartedAt.After(to.Add(tolerance))
		}
		if in {
			runs = append(runs, r)
		}
	}
	return append(runs, n.claimsLost(task, claimed, from, to)...)
}

// claimsLost is the records, as the next scan makes them (recordOutcomes),
// of task's outcome notes of a slot in [from, to] whose claim is not among
// the runs of that range (claimed): the disk lost it with the outcome (an
// I/O error), or its id names another run. Each is its slot's fire, which
// ran. (A moved note is among the fires already.)
func (n *pendingNotes) claimsLost(task string, claimed map[int64]bool, from, to time.Time) []store.Run {
	var out []store.Run
	for i, id := range slices.Sorted(maps.Keys(n.outcomes)) {
		e := n.outcomes[id]
		if e.Task != task || e.Moved || claimed[id] || e.Slot.IsZero() || e.Slot.Before(from) || e.Slot.After(to) {
			continue
		}
		e.RunID = 0
		r := noteRun(e, func(spoolEntry) time.Time { return time.Time{} })
		r.ID = notedRunBase + int64(len(n.fires)+i)
		out = append(out, r)
	}
	return out
}

// noted is run r as the next scan leaves it: with the outcome a note of
// this host holds for it, when r is still running or was taken for
// interrupted meanwhile (as recordOutcomes gives it); else r itself.
func (n *pendingNotes) noted(r *store.Run) *store.Run {
	if n == nil || r == nil {
		return r
	}
	e, ok := n.outcomeOf(*r)
	if !ok || (r.Status != store.StatusRunning && r.Status != store.StatusInterrupted) {
		return r
	}
	c := *r
	c.Status, c.ExitCode, c.Signal, c.EndedAt, c.Error = e.Status, e.ExitCode, e.Signal, e.EndedAt, e.RunError
	return &c
}

// outcomeOf is the outcome note of this host for run r, if it holds one:
// only for its own claim (sameClaim), never for another run under its id.
func (n *pendingNotes) outcomeOf(r store.Run) (spoolEntry, bool) {
	if n == nil {
		return spoolEntry{}, false
	}
	e, ok := n.outcomes[r.ID]
	if !ok || !sameClaim(r, e) { // not another run under its id
		return spoolEntry{}, false
	}
	return e, true
}

// unrecorded reports whether run r, or its outcome, is known from a note
// of this host alone: the next scan records it.
func (n *pendingNotes) unrecorded(r store.Run) bool {
	if r.ID >= notedRunBase {
		return true
	}
	if n == nil {
		return false
	}
	e, ok := n.outcomeOf(r)
	return ok && e.Status == r.Status && e.EndedAt.Equal(r.EndedAt)
}
