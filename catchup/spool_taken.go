package catchup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/catchup/catchup/internal/filetrust"
)

// A scan takes a notes file by renaming it to NOTES.PID, records the notes,
// then removes it; the functions here give back the notes it could not
// record, or that a scan killed meanwhile left behind.

// failedSuffix names the file where a catchup older than the notes'
// put-back left the notes it could not record (path.failed), which nothing
// read: they are adopted as a killed scan's are.
const failedSuffix = ".failed"

// adoptAbandoned puts back into path the notes that a scan took (renamed
// to path.PID) and never recorded, because it was killed: those of a
// process that is gone, and an older catchup's path.failed. Each is renamed to taken first, so that two scans
// never both put the same notes back. Notes that uid alone could not have
// written are refused, and left where they are.
func adoptAbandoned(path, taken string, uid int) error {
	found, _ := filepath.Glob(path + ".*")
	for _, old := range found {
		pid, err := strconv.Atoi(strings.TrimPrefix(old, path+"."))
		failed := old == path+failedSuffix
		if !failed && (err != nil || pid <= 0 || old == taken || syscall.Kill(pid, 0) != syscall.ESRCH) {
			continue // not a scan's, ours, or its scan may still be at it
		}
		if err := checkNotes(old, uid); err != nil {
			return err
		}
		if err := os.Rename(old, taken); err != nil {
			continue // another scan adopted it first
		}
		// The notes it kept for later (splitNotes), a copy of some in old:
		// adopted with it, never read, never to be put back a second time.
		os.Remove(old + partSuffix)
		if err := putBack(taken, path, uid); err != nil {
			return err
		}
	}
	return nil
}

// putBack returns the notes taken from path to it, for the next scan: one
// append (fires noted meanwhile are kept, and appends do not interleave),
// then taken is removed. If they cannot be put back, taken stays, and the
// error names it. Notes that uid alone could not have written are refused:
// put back, they would pass for this user's.
func putBack(taken, path string, uid int) error {
	f, err := openNotes(taken, uid)
	if errors.Is(err, filetrust.ErrRefused) {
		return err
	}
	var b []byte
	if err == nil {
		b, err = io.ReadAll(f)
		f.Close()
	}
	if err == nil {
		// As a fire appends its note: a write cut short (a full disk) is
		// truncated back, never left as a torn note that the next
		// put-back's first note would join into a line that is no note.
		err = appendNote(path, b)
	}
	if err != nil {
		return fmt.Errorf("the notes stay in %s: move them back to %s for the next scan: %w", taken, path, err)
	}
	return os.Remove(taken)
}
