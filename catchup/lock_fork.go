package catchup

import (
	"os"
	"sync"
	"syscall"
	"time"
)

// A child that this process forks holds a copy of each of its descriptors
// until it runs its command (close-on-exec drops them then), and a copy of
// a lock file's holds its lock: a lock this process has just let go of is
// still held meanwhile. A daemon starts fires while others end; a task's
// next run at once (a scan's next replay of it) found its lock held, and
// was skipped as busy (exit 75), its slot left to the next scan.
//
// So a lock file is closed only while no child is being forked (a fork
// holds syscall.ForkLock for writing until its child has begun its
// command: vfork), and a lock found held within forkCopyGrace of this
// process's close of the same file, not taken since by this process, is
// tried again: the copy goes with the end of its child's execve, a moment
// later. So is a lock shadowed by the deleted file of the same path that
// this process closed (lock_ghost.go: the lock directory removed).

// forkCopyGrace is how long after this process closed a lock file its lock
// found held may be held by such a copy alone (tryLock polls meanwhile);
// a holder that keeps it longer is another run (or its job, or an orphan
// of its job).
const forkCopyGrace = 500 * time.Millisecond

// lockClosed is when this process last closed each lock file, by path,
// until it takes the file's lock again: a holder found after that is
// another run, not a copy.
var lockClosed sync.Map

// closeLockFile closes f, a lock file, releasing its lock (held: f's
// descriptor took it) once no child of this process holds a copy of it.
func closeLockFile(f *os.File, held bool) {
	name := f.Name()
	closeUnforked(f)
	if held {
		lockClosed.Store(name, time.Now())
	}
}

// flockNow takes l's lock unless another holds it, waiting only for a
// copy in a child of this process being started (forkCopyGrace).
func (l *taskLock) flockNow() error {
	for {
		err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			l.locked = true
		}
		if err != syscall.EWOULDBLOCK || !forkCopyMayHold(l.f.Name()) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// forkCopyMayHold reports whether this process closed the lock file at
// path less than forkCopyGrace ago.
func forkCopyMayHold(path string) bool {
	at, ok := lockClosed.Load(path)
	if ok && time.Since(at.(time.Time)) >= forkCopyGrace {
		lockClosed.CompareAndDelete(path, at)
		return false
	}
	return ok
}

// closeUnforked closes fs while no child of this process is being forked,
// so that a descriptor closed to tell its peer the end (a lock, a progress
// channel) is not left open in a child that has not yet run its command.
func closeUnforked(fs ...*os.File) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	for _, f := range fs {
		f.Close()
	}
}
