package catchup

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// appendTries bounds how often a note starts again because a scan took the
// notes file (renamed it) between its open and its lock. A scan takes the
// file at most once a minute in a daemon, and once per run elsewhere: the
// bound is reached only by a test that takes it as fast as notes come.
var appendTries = 100

// noteLockWait bounds the wait for the notes file's lock: a process that
// holds it and goes no further (stopped, its disk hung) holds back no
// fire's note, nor any scan, for longer.
var noteLockWait = 10 * time.Second

// appendNote appends line to the notes file at path in one write, synced:
// appends do not interleave, and a note that a full disk cut short is taken
// back, so that it cannot run into the next one: under the file's lock, or
// the cut would take another fire's note appended meanwhile with it. A
// file that a scan took between the open and the lock is not written to
// (the scan may have read it already): the note goes to the file now at
// path.
func appendNote(path string, line []byte) error {
	for range appendTries {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return err
		}
		err = lockNotes(f) // released by the close
		var fi os.FileInfo
		if err == nil {
			fi, err = f.Stat()
		}
		if err == nil && !stillAt(path, fi) {
			f.Close()
			continue // taken by a scan
		}
		if err == nil {
			if _, err = f.Write(line); err == nil {
				err = f.Sync()
			}
			if err != nil {
				f.Truncate(fi.Size())
			}
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return fmt.Errorf("append to %s: taken by a scan %d times while this note waited", path, appendTries)
}

// stillAt reports whether path still names file fi.
func stillAt(path string, fi os.FileInfo) bool {
	at, err := os.Lstat(path)
	return err == nil && os.SameFile(at, fi)
}

// awaitAppends waits for the notes being appended to the notes file just
// taken (renamed to taken) to be whole: a fire that opened it before it
// was taken and locks it after finds it taken and appends to the next one
// (appendNote); one that locked it before is waited for here.
func awaitAppends(taken string) {
	f, err := os.OpenFile(taken, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return // the reader says what is wrong
	}
	defer f.Close()
	lockNotes(f) // or, past the wait, the notes as they are
}

// lockNotes takes notes file f's lock, waiting noteLockWait at most.
func lockNotes(f *os.File) error {
	deadline := time.NewTimer(noteLockWait)
	defer deadline.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		select {
		case <-deadline.C:
			return fmt.Errorf("lock %s: another process has held it for %v, appending a note", f.Name(), noteLockWait)
		case <-time.After(5 * time.Millisecond):
		}
	}
}
