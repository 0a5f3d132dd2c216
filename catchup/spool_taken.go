package catchup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

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
		if !failed && (err != nil || pid <= 0 || old == taken || !takerGone(pid, old)) {
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

// takerGone reports whether the process that took a notes file under its
// pid (taken: NOTES.PID) can no longer be recording it: the pid is gone, or
// names a process that started after the file was taken (renamed: its
// change time), so not the one that took it: the pid was reused (after a
// power cut, the next boot's processes take the old pids). Such notes are
// abandoned: the next scan adopts and records them. A start it cannot read
// (another user's process, no /proc) counts as the taker's.
func takerGone(pid int, taken string) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	var st syscall.Stat_t
	if syscall.Lstat(taken, &st) != nil {
		return false
	}
	start, ok := processStart(pid)
	return ok && start.After(time.Unix(st.Ctim.Sec, st.Ctim.Nsec))
}

// processStart is when process pid started, from /proc: its start in clock
// ticks after the boot (/proc/PID/stat), and the boot's time (/proc/stat
// btime, whole seconds: the start read is at most a second early, never
// late). Linux's clock tick for /proc is 100 Hz (USER_HZ).
func processStart(pid int) (time.Time, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	i := bytes.LastIndexByte(b, ')') // comm may hold spaces and parentheses
	if i < 0 {
		return time.Time{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64) // field 22, starttime
	if err != nil {
		return time.Time{}, false
	}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(stat), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(boot, 0).Add(time.Duration(ticks) * 10 * time.Millisecond), true
		}
	}
	return time.Time{}, false
}
