package catchup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/internal/filetrust"
)

// taskLock is the per-task lock file, held with flock(2). The descriptor is
// handed to the command (as flock(1) does), so the lock lives as long as the
// command does, even when catchup itself is SIGKILLed: no new run of the
// task can start beside an orphaned one.
//
// It calls flock(2) itself rather than through gofrs/flock, the design's
// lock package: a gofrs/flock Flock keeps its descriptor private (v0.13.2
// has no accessor), and the descriptor is what the command must inherit.
type taskLock struct {
	f *os.File
	// vet: a task's lock (of task in dir, for uid), checked for a deleted
	// twin before it counts (lock_ghost.go); ghostAt is when one was last
	// found.
	vet       bool
	dir, task string
	uid       int
	ghostAt   time.Time
	// locked: this descriptor took the lock (flockNow), and has not let
	// go of it since (LOCK_UN); its close releases it (closeLockFile).
	locked bool
}

// openTaskLock opens (creating) the lock file of task in dir, for user uid.
// The directory is created 0700 and the file 0600; O_NOFOLLOW refuses a
// planted symlink. A directory or file that another user planted or can
// write is refused: whoever holds a task's lock stops its fires (exit 75).
func openTaskLock(dir, task string, uid int) (*taskLock, error) {
	l, err := openLockFile(dir, task, ".lock", uid)
	if err == nil {
		l.vet, l.dir, l.task, l.uid = true, dir, task, uid
	}
	return l, err
}

// ErrCreateLockDir marks an error creating the lock directory: the ledger
// may be fine; this host's locks, notes and owed alerts have no place.
var ErrCreateLockDir = errors.New("create lock directory")

// ErrOpenLockFile marks an error opening a lock file in the lock
// directory (a directory left at its path, a file the user cannot open):
// the ledger may be fine; this host's lock for the task cannot be taken.
var ErrOpenLockFile = errors.New("cannot open the lock file")

// lockDirError is err, an error of the lock directory, with its cause named
// where Machine.LockDirHint knows it.
func (m Machine) lockDirError(err error) error {
	if m.LockDirHint == nil || !errors.Is(err, ErrCreateLockDir) {
		return err
	}
	return m.LockDirHint(err)
}

// lockDir checks that dir, the lock directory, is uid's own directory (no
// symlink, no one else's): a planted one is refused, for the locks and for
// the notes of unrecorded fires. With create, it is made if missing;
// without, a missing one is fine (nothing there to read). Anything but a
// directory at its path is an error (ErrCreateLockDir): no lock can be
// taken, nor note kept, in it.
func lockDir(dir string, uid int, create bool) error {
	if err := filetrust.PlantedLink("lock directory", filepath.Dir(dir), uid); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) && !create {
		return nil
	}
	made := errors.Is(err, os.ErrNotExist)
	if made {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("%w: %w", ErrCreateLockDir, err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return fmt.Errorf("lock directory: %w", err)
	}
	if err := filetrust.Private("lock directory "+dir, dir, fi, uid); err != nil {
		return err // a symlink, another user's: refused, whatever it is
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory: remove what is at its path", ErrCreateLockDir, dir)
	}
	if made {
		makeNoteReserve(dir) // room for a note when its disk fills (spool_reserve.go)
	}
	return nil
}

// openLockFile opens (creating) the file task+suffix in dir, for user uid,
// as openTaskLock says.
func openLockFile(dir, task, suffix string, uid int) (*taskLock, error) {
	if err := taskname.Check(task); err != nil {
		return nil, err
	}
	if err := lockDir(dir, uid, true); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, task+suffix)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.EROFS) {
		// A file system turned read-only: flock needs no write, and the
		// fire goes on to the ledger, which says what is wrong (the marks
		// written into a lock file are best-effort).
		if ro, rerr := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0); rerr == nil {
			f, err = ro, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpenLockFile, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = filetrust.Private("lock file "+path, path, fi, uid)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &taskLock{f: f}, nil
}

// tryLock takes the lock without waiting; false means another process
// holds it, or (a task's lock) still holds the deleted file it replaces.
// A deleted file that this process let go of a moment ago may be held by
// a copy alone (lock_fork.go): it is looked at again until forkCopyGrace
// has passed.
func (l *taskLock) tryLock() (bool, error) {
	if l.vet && !l.ghostAt.IsZero() && time.Since(l.ghostAt) < ghostRecheck {
		return false, nil
	}
	for {
		ok, err := l.tryLockOnce()
		if ok {
			lockClosed.Delete(l.f.Name())
		}
		if ok || err != nil || l.ghostAt.IsZero() || !forkCopyMayHold(l.f.Name()) {
			return ok, err
		}
		time.Sleep(10 * time.Millisecond) // each look reads /proc
	}
}

// tryLockOnce is tryLock, once.
func (l *taskLock) tryLockOnce() (bool, error) {
	for moves := 0; ; moves++ {
		err := l.flockNow()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("lock %s: %w", l.f.Name(), err)
		}
		if !l.vet {
			return true, nil
		}
		held, err := l.f.Stat()
		if err != nil {
			return true, nil // cannot tell: as before the checks
		}
		if moves < 3 && l.moved(held) { // a file deleted since it was opened: the path's is the lock now
			if err := l.reopen(); err != nil {
				return false, err
			}
			continue
		}
		if held.Size() == 0 && l.shadowed(held) {
			_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
			l.locked = false
			return false, nil
		}
		return true, nil
	}
}

// wait takes the lock, waiting for its holder to finish or ctx to end.
// It polls so that a signal can still stop a waiting catchup.
func (l *taskLock) wait(ctx context.Context) error {
	for {
		ok, err := l.tryLock()
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the lock of %s: %w", l.f.Name(), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitFor is wait with a limit (0: none); got is false, with no error,
// when the limit passed first.
func (l *taskLock) waitFor(ctx context.Context, limit time.Duration) (got bool, err error) {
	wctx := ctx
	if limit > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	err = l.wait(wctx)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return false, nil
	}
	return err == nil, err
}

// close releases the lock (if this process's descriptor was the last one);
// a second close does nothing.
func (l *taskLock) close() {
	if l != nil && l.f != nil {
		closeLockFile(l.f, l.locked)
		l.f, l.locked = nil, false
	}
}
