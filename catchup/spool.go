package catchup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// A fire that cannot reach the ledger leaves a note on this host, in the
// ledger's private lock directory; the next scan that reaches the ledger
// records it (reason ledger-unreachable, or lock-file for a fire that could
// not take this host's lock for its task). A fire that did not run is then a
// lock-style skip (its slot stays missed, and says why); one that ran
// unrecorded gets its outcome, so that its slot is not run a second time.

// spoolName is the notes file in the lock directory; it cannot be a task's
// lock file, since a task name never starts with a dot.
const spoolName = ".unrecorded.jsonl"

// spoolEntry is one fire the ledger did not record.
type spoolEntry struct {
	Task      string    `json:"task"`
	Slot      time.Time `json:"slot,omitzero"`
	Trigger   string    `json:"trigger"`
	Host      string    `json:"host"`
	BootID    string    `json:"boot_id"`
	BootTime  time.Time `json:"boot_time,omitzero"` // when its boot started, if known
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	Ran       bool      `json:"ran"`
	Status    string    `json:"status,omitempty"` // the outcome, when it ran
	ExitCode  *int      `json:"exit_code,omitempty"`
	Locked    bool      `json:"locked,omitempty"`  // it did not run because the task's lock was held
	Error     string    `json:"error"`             // why the ledger could not record it
	ByHand    bool      `json:"by_hand,omitempty"` // run --manual: it stands for no slot
	// LockFault: it could not take this host's lock for its task (its lock
	// file not to be opened, its lock directory not to be made or trusted;
	// hostLockFault): the ledger was fine. Recorded with the reason
	// lock-file, not ledger-unreachable; a note an older catchup wrote has
	// none, and stays ledger-unreachable.
	LockFault bool `json:"lock_fault,omitempty"`
	// RowLocked: its claim reached a shared ledger, but gave up waiting
	// for the task's row, which another session held past the lock
	// timeout (store.ErrLedgerLocked): recorded with the reason
	// ledger-locked, not ledger-unreachable.
	RowLocked bool `json:"row_locked,omitempty"`
	// Register: the registration of a --cron fire that could not read its
	// task from the ledger (spool_register.go); nil otherwise.
	Register *noteTask `json:"register,omitempty"`

	// The outcome of claimed run RunID, which the ledger did not take
	// (spool_outcome.go): Status, ExitCode and EndedAt above, and these.
	RunID      int64  `json:"run_id,omitempty"`
	Signal     int    `json:"signal,omitempty"`
	RunError   string `json:"run_error,omitempty"`
	StdoutTail []byte `json:"stdout_tail,omitempty"`
	StderrTail []byte `json:"stderr_tail,omitempty"`
	// Moved: run RunID's record was in a ledger file since deleted or
	// replaced (a backup restored while it ran). The file now at the path
	// may hold a copy of its claim, or not: the note is its outcome when it
	// does (sameClaim), else the fire of its slot (spool_outcome.go).
	Moved bool `json:"moved,omitempty"`
}

// ranUnrecorded is a command that ran while the ledger could not record
// it: when it started, and its outcome as a recorded run's would be
// (interrupted when a stop cut it short, so that its slot is replayed).
type ranUnrecorded struct {
	start time.Time
	out   store.Outcome
}

// errLocked is the cause of a fire that found the lock held while the
// ledger could not be reached either.
var errLocked = errors.New(reasonLocked)

// spoolFire notes a fire the ledger could not record: fr is the slot and
// trigger it was fired for, resolved before its command started (a job that
// ends after the next slot came still stands for its own); ran is what ran
// (nil when the command did not run), cause why the ledger could not record
// it. The note goes to the lock directory, else (the same full or read-only
// filesystem as the ledger) to the spare note directory; a fire whose note
// neither can take says what that costs, since its run is not lost, only
// the knowledge that it ran.
func (l *lifecycle) spoolFire(fr fire, ran *ranUnrecorded, cause error) {
	now := l.m.Now()
	e := spoolEntry{Task: l.req.Task, Slot: fr.slot, Trigger: fr.trigger, Host: l.m.Host, BootID: l.m.BootID,
		PID: l.m.PID, StartedAt: now, EndedAt: now, Error: cause.Error(), Locked: cause == errLocked, ByHand: fr.byHand,
		Register: l.noteRegistration(now, fr.slot), BootTime: l.m.BootTime, LockFault: hostLockFault(cause),
		RowLocked: errors.Is(cause, store.ErrLedgerLocked)}
	if ran != nil {
		e.Ran, e.Status, e.ExitCode, e.StartedAt = true, ran.out.Status, ran.out.ExitCode, ran.start
	}
	err := l.writeNote(e)
	if err == nil {
		return // the fire has said that it ran unrecorded; the next scan records it
	}
	s := "the fire"
	if !fr.slot.IsZero() {
		s = "slot " + formatSlot(fr.slot, l.sched)
	}
	if ran != nil {
		l.m.notice("cannot keep a note of this fire (%v): the next scan cannot know that it ran, and will run %s of %s again",
			err, s, l.req.Task)
		return
	}
	l.m.notice("cannot keep a note of this fire (%v): the next scan will not know why %s of %s was missed", err, s, l.req.Task)
}

// writeNote keeps note e for the next scan: in the lock directory, else in
// the spare note directory.
func (l *lifecycle) writeNote(e spoolEntry) error { return writeNote(l.m, e) }

// writeNote keeps note e of m's ledger for the next scan (lifecycle.writeNote).
func writeNote(m Machine, e spoolEntry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	// The lock directory as a lock takes it: this user's, no symlink (one
	// planted there could aim the note at another ledger's notes).
	err = lockDir(m.LockDir, m.UID, true)
	if err == nil {
		err = appendNote(filepath.Join(m.LockDir, spoolName), line)
		for errors.Is(err, syscall.ENOSPC) && spendNoteReserve(m.LockDir) {
			err = appendNote(filepath.Join(m.LockDir, spoolName), line) // into the space the reserve held
		}
	}
	if err == nil {
		return nil
	}
	if m.NoteDir != "" {
		dir, serr := spareDirToWrite(m)
		if serr == nil {
			serr = appendNote(spareNotesIn(m, dir), line)
		}
		if serr == nil {
			return nil
		}
		err = fmt.Errorf("%w; nor %w", err, serr)
	}
	return err
}

// importSpool records the fires this host could not record, then removes
// their notes, from the lock directory and from the spare note directory;
// with take, only the notes take reports true for, the others kept for
// later (splitNotes). A slotless note of a task with a schedule stands for
// the slot it was fired for (the latest at or before it, within
// tolerance). A notes file not owned by this user, or writable by others,
// is refused.
func importSpool(ctx context.Context, st store.Store, m Machine, tolerance time.Duration, take func(spoolEntry) bool) (notesRecorded, error) {
	// One import at a time in a process (the daemon's tasks scan at once):
	// they take the notes under one name, this process's pid.
	importing.Lock()
	defer importing.Unlock()
	var n notesRecorded
	err := lockDir(m.LockDir, m.UID, false) // as spoolFire wrote them: never through a symlink
	if err == nil {
		n, err = importNotes(ctx, st, m, filepath.Join(m.LockDir, spoolName), tolerance, take)
		if _, serr := os.Lstat(m.LockDir); serr == nil && err == nil {
			// Spent by a note, perhaps: made again, once an import has
			// recorded its notes (the disk had room). After one that could
			// not, it would take the space other fires just freed for theirs.
			makeNoteReserve(m.LockDir)
		}
	}
	dirs, squat := spareDirs(m)
	if squat != nil {
		m.notice("warning: %v", squat)
	}
	for _, dir := range dirs {
		if derr := privateDir(dir, m.UID, false); derr != nil {
			err = JoinErrors(err, derr)
			continue
		}
		k, serr := importNotes(ctx, st, m, spareNotesIn(m, dir), tolerance, take)
		n, err = n.plus(k), JoinErrors(err, serr)
	}
	return n, err
}

// importing serialises importSpool within a process.
var importing sync.Mutex

// notesRecorded counts the notes an import recorded: the fires and
// outcomes that could not reach the ledger, and apart from them the fires
// that ran nothing because they could not take this host's lock for their
// task (spoolEntry.LockFault), which the ledger was fine for, and the
// fires that ran without that lock (lockRan: a SQLite ledger's, run
// unrecorded), which were once counted as fires that ran nothing.
type notesRecorded struct {
	unreached, lockRefused, rowLocked, lockRan int
	before                                     []string // what notedBefore says of them
}

func (n notesRecorded) plus(o notesRecorded) notesRecorded {
	return notesRecorded{n.unreached + o.unreached, n.lockRefused + o.lockRefused, n.rowLocked + o.rowLocked,
		n.lockRan + o.lockRan, append(n.before, o.before...)}
}

// total is every note recorded.
func (n notesRecorded) total() int { return n.unreached + n.lockRefused + n.rowLocked + n.lockRan }

// importNotes records the notes of one notes file (those take reports
// true for: splitNotes), then removes it.
func importNotes(ctx context.Context, st store.Store, m Machine, path string, tolerance time.Duration,
	take func(spoolEntry) bool) (notesRecorded, error) {
	taken := takenNotes(path, m.PID)
	if err := adoptAbandoned(path, taken, m.UID); err != nil {
		return notesRecorded{}, err
	}
	if _, err := os.Lstat(taken); err == nil {
		// Left by an earlier process with this pid (a container's PID 1,
		// killed while it imported): merged back, never overwritten.
		if err := putBack(taken, path, m.UID); err != nil {
			return notesRecorded{}, err
		}
		os.Remove(taken + partSuffix) // its copy of some of them (adoptAbandoned)
	}
	// A notes file refused is left as it is, where it is: taken, it would
	// be merged back into a file of this user's alone, and trusted.
	if err := checkNotes(path, m.UID); err != nil {
		return notesRecorded{}, err
	}
	if err := os.Rename(path, taken); err != nil {
		if os.IsNotExist(err) {
			return notesRecorded{}, nil
		}
		return notesRecorded{}, fmt.Errorf("read the notes of unrecorded fires: %w", err)
	}
	awaitAppends(taken)
	entries, err := readSpool(taken, m.UID)
	if errors.Is(err, filetrust.ErrRefused) {
		return notesRecorded{}, err // changed since checkNotes: left taken, refused by every later scan too
	}
	if err != nil {
		return notesRecorded{}, JoinErrors(err, putBack(taken, path, m.UID))
	}
	entries, part, err := splitNotes(taken, entries, take)
	if err != nil {
		return notesRecorded{}, JoinErrors(err, putBack(taken, path, m.UID))
	}
	giveBack := func() error { // nothing recorded: every note back, the others' copy gone
		if part != "" {
			os.Remove(part)
		}
		return putBack(taken, path, m.UID)
	}
	entries, outcomes, err := recordOutcomes(ctx, st, entries)
	if err != nil {
		return notesRecorded{}, JoinErrors(fmt.Errorf("record the notes of unrecorded outcomes: %w", err), giveBack())
	}
	if err := registerNoted(ctx, st, m, entries); err != nil {
		return notesRecorded{}, JoinErrors(fmt.Errorf("register the tasks of unrecorded fires: %w", err), giveBack())
	}
	runs := make([]store.Run, 0, len(entries))
	for _, e := range entries {
		runs = append(runs, noteRun(e, func(e spoolEntry) time.Time { return slotOfFire(ctx, st, m, e, tolerance) }))
	}
	if _, err := st.AddRuns(ctx, runs); err != nil {
		return notesRecorded{}, JoinErrors(fmt.Errorf("record the notes of unrecorded fires: %w", err), giveBack())
	}
	recordNoteSightings(ctx, st, m, entries) // each fire proves its boot up then (S7d)
	if err := backdateLines(ctx, st, runs); err != nil {
		return notesRecorded{}, JoinErrors(fmt.Errorf("register the crontab lines of unrecorded fires: %w", err), leaveNotes(taken, path, part, m.UID))
	}
	before, err := notedBefore(ctx, st, runs)
	if err != nil { // recorded all the same: only the line about them is lost
		before = []string{fmt.Sprintf("could not read the registrations of the tasks of unrecorded fires: %v", err)}
	}
	n := notesRecorded{unreached: outcomes, before: before}
	for _, e := range entries {
		if e.LockFault && e.Ran {
			n.lockRan++
		} else if e.LockFault {
			n.lockRefused++
		} else if e.RowLocked {
			n.rowLocked++
		} else {
			n.unreached++
		}
	}
	return n, leaveNotes(taken, path, part, m.UID)
}
