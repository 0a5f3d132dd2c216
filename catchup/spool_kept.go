package catchup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/store"
)

// A scan (or a backfill) records this host's notes of unrecorded fires
// before it looks for the slots to run. Notes it could not record (the
// ledger failed part-way, its disk is full) stay for the next scan; until
// then it counts them as that scan will record them, as the readers do
// (spool_read.go), so that a slot whose fire ran unrecorded is not run a
// second time. Notes it can neither record nor read, or that it refuses,
// may stand for any slot: it runs nothing.

// ErrNotesRefused marks a scan or a backfill that ran nothing because this
// host's notes of unrecorded fires could not be read or were refused.
var ErrNotesRefused = errors.New("refusing to replay")

// recordNotes records this host's notes of unrecorded fires (importSpool).
// The notes it could not record are returned, read as the next scan will
// record them, with fault, why they stay; nil notes with a fault: the
// import failed but left no note behind (a spare note directory that is
// not this user's, where no note of its can be). Notes another scan holds
// (taken, recording them) are returned too, with no fault: until that
// scan records them, or gives them back, their slots are not to be run.
// what names the caller in the error of notes it can neither record nor
// read, or refuses (ErrNotesRefused): until they are recorded, it must run
// nothing.
func recordNotes(ctx context.Context, st store.Store, m Machine, tolerance time.Duration,
	what string) (notes *pendingNotes, fault error, err error) {
	return recordNotesOf(ctx, st, m, tolerance, what, nil)
}

// recordNotesOf is recordNotes of the notes take reports true for (nil:
// all); the others are kept, and returned with the notes not recorded.
func recordNotesOf(ctx context.Context, st store.Store, m Machine, tolerance time.Duration,
	what string, take func(spoolEntry) bool) (notes *pendingNotes, fault error, err error) {
	n, fault := importSpool(ctx, st, m, tolerance, take)
	if fault == nil && n.unreached > 0 {
		m.notice("recorded %d %s that could not reach the ledger at the time", n.unreached, plural(n.unreached, "fire", "fires"))
	}
	if fault == nil && n.rowLocked > 0 {
		m.notice("recorded %d %s that ran nothing: the ledger's row of %s was held by another session past the lock timeout",
			n.rowLocked, plural(n.rowLocked, "fire", "fires"), plural(n.rowLocked, "its task", "their tasks"))
	}
	if fault == nil && n.lockRan > 0 {
		m.notice("recorded %d %s that ran while this host's lock for %s could not be taken",
			n.lockRan, plural(n.lockRan, "fire", "fires"), plural(n.lockRan, "its task", "their tasks"))
	}
	if fault == nil && n.lockRefused > 0 {
		m.notice("recorded %d %s that ran nothing: this host's lock for %s could not be taken",
			n.lockRefused, plural(n.lockRefused, "fire", "fires"), plural(n.lockRefused, "its task", "their tasks"))
	}
	for _, w := range n.before {
		m.notice("warning: %s", w)
	}
	notes, k, err := keptNotes(m)
	if err != nil {
		return nil, fault, fmt.Errorf("%w: %w; until its notes are recorded, %s could run a slot that they say ran",
			ErrNotesRefused, err, what)
	}
	if k == 0 {
		return nil, fault, nil
	}
	if fault == nil {
		return notes, nil, nil
	}
	return notes, fmt.Errorf("%d %s of unrecorded fires %s on this host for the next scan to record, "+
		"and %s ran no slot they say ran: %w", k, plural(k, "note", "notes"), plural(k, "stays", "stay"), what, fault), nil
}

// notesBefore records this host's notes of unrecorded fires (their
// slotless fires found with tolerance, as recordNotes) before a command
// that records slots expired or paused (forget, pause, resume, an edited
// crontab line's registration: notesBeforeChange), as
// scan and backfill record them first: a slot whose fire ran unrecorded is
// settled by its run, never recorded expired or paused beside it (nor
// named missed, nor said to be replayed). Notes it can neither record nor
// read stop it, as they stop scan: the error says why and the fix (a
// ledger that cannot be written fails the command's own write next, with
// the same fix: said once). A fault that left no note behind does not.
func notesBefore(ctx context.Context, st store.Store, m Machine, tolerance time.Duration, what string) error {
	return notesBeforeOf(ctx, st, m, tolerance, what, nil)
}

// notesBeforeOf is notesBefore of the notes take reports true for (nil:
// all); the others are kept for later.
func notesBeforeOf(ctx context.Context, st store.Store, m Machine, tolerance time.Duration, what string,
	take func(spoolEntry) bool) error {
	notes, fault, err := recordNotesOf(ctx, st, m, tolerance, what, take)
	switch {
	case err != nil:
		return err
	case fault != nil && notes != nil:
		return fmt.Errorf("this host's notes of unrecorded fires stay for the next scan to record, so %s recorded nothing: %w",
			what, cmp.Or(errors.Unwrap(fault), fault))
	}
	return nil
}

// keptNotes reads, taking, moving and writing nothing, the notes this host
// keeps after an import (those it could not record, those another scan
// holds, those noted since), and counts them: those of the lock
// directory, and of the spare note directory unless it is not this user's
// (writeNote leaves none there then), each also as taken by any process
// (NOTES.PID: this one's, not put back; a live scan's, recording them; a
// killed scan's, not adopted). A notes file there that cannot be read, or
// is refused, is an error.
func keptNotes(m Machine) (*pendingNotes, int, error) { return keptNotesOf(m, nil) }

// notesBudget is what is left to read of another user's notes files: bytes
// and files, across all their lock directories.
type notesBudget struct {
	bytes int64
	files int
}

// keptNotesOf is keptNotes, its notes files read only within left (nil:
// all of them, whole), lowered by what it read, so that one budget bounds
// the notes of several lock directories: past it, the file is refused
// (readSpoolOf, notesTooMany).
func keptNotesOf(m Machine, left *notesBudget) (*pendingNotes, int, error) {
	if err := lockDir(m.LockDir, m.UID, false); err != nil {
		return nil, 0, err
	}
	files := withTaken(filepath.Join(m.LockDir, spoolName))
	dirs, _ := spareDirs(m) // a squatted one said by the import before
	for _, dir := range dirs {
		if privateDir(dir, m.UID, false) == nil {
			files = append(files, withTaken(spareNotesIn(m, dir))...)
		}
	}
	n, k := &pendingNotes{outcomes: map[int64]spoolEntry{}}, 0
	for _, f := range files {
		if _, err := os.Lstat(f); errors.Is(err, os.ErrNotExist) {
			continue
		}
		var maxSize int64
		if left != nil {
			switch {
			case left.bytes <= 0:
				return nil, 0, notesTooLarge(f)
			case left.files <= 0:
				return nil, 0, notesTooMany(f)
			}
			maxSize = left.bytes
			left.files--
		}
		entries, read, err := readSpoolOf(f, m.UID, maxSize)
		if left != nil {
			left.bytes -= read
		}
		if errors.Is(err, os.ErrNotExist) {
			continue // recorded meanwhile by the scan that held them
		}
		if err != nil {
			return nil, 0, err
		}
		n.add(entries)
		k += len(entries)
	}
	return n, k, nil
}

// withTaken is the notes file at path, the names under which processes
// took it (takenNotes), and an older catchup's path.failed.
func withTaken(path string) []string {
	files := []string{path}
	found, _ := filepath.Glob(path + ".*")
	for _, f := range found {
		if pid, err := strconv.Atoi(strings.TrimPrefix(f, path+".")); err == nil && pid > 0 || f == path+failedSuffix {
			files = append(files, f)
		}
	}
	return files
}
