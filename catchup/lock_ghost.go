package catchup

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// A task's lock file deleted while a run holds it (the lock directory
// cleaned by tmpfiles, or removed by hand) leaves that run holding a lock
// on a file no one else can open: the next fire creates a new file, locks
// it, and would run beside it. Checking that the path still names the
// locked file (flock, then stat) does not catch that: the new file is the
// path's, and its lock is free. So a lock file is vetted before its first
// lock counts: no process may still hold a deleted lock file of the same
// path (the run, its command, or an orphan that kept fd 3). A vetted file
// is marked by its content, so that the check is paid once per lock file:
// at a task's first fire and after each deletion. The path check still
// serves a fire that waited on the deleted file: once it gets that lock,
// it moves to the path's file (reopen).

// vettedMark is a vetted lock file's content.
const vettedMark = "catchup task lock\n"

// ghostRecheck is how long a lock found shadowed by a deleted one counts
// as held (tryLock) before /proc is read again (a --wait polls every 50ms).
const ghostRecheck = time.Second

// moved reports whether l's path no longer names held, the file l has
// open (deleted, or replaced).
func (l *taskLock) moved(held os.FileInfo) bool {
	now, err := os.Stat(l.f.Name())
	return err != nil || !os.SameFile(held, now)
}

// reopen moves l to the file its path names now (creating it).
func (l *taskLock) reopen() error {
	n, err := openLockFile(l.dir, l.task, ".lock", l.uid)
	if err != nil {
		return err
	}
	closeLockFile(l.f, false) // a copy of it holds the deleted file's lock, not the path's
	l.f, l.locked = n.f, false
	return nil
}

// shadowed reports whether the lock just taken on l, whose file fi is not
// vetted yet, may not be the task's only one: a deleted lock file of the
// same path is still locked. An unshadowed file is marked vetted.
func (l *taskLock) shadowed(fi os.FileInfo) bool {
	if deletedLockHeld(l.f.Name(), fi) {
		l.ghostAt = time.Now()
		return true
	}
	l.ghostAt = time.Time{}
	_, _ = l.f.WriteAt([]byte(vettedMark), 0) // else vetted again next time
	return false
}

// deletedLockHeld reports whether a flock(2) lock is held on a deleted
// file that was at path. /proc/locks lists every such lock (its file's
// inode, and the pid that took it): each lock of another inode is looked up
// among its taker's descriptors: one that has it open under the deleted
// name says yes at once. Else the slow way decides: every process's
// descriptors of the deleted file, and the locks each holds (a taker gone,
// its lock kept by a child: a job that outlived its catchup; a fire
// waiting on the deleted file has it open, and holds no lock). Another user's process
// cannot have this user's lock file open (0600, in a 0700 directory).
// Without /proc (not Linux) it cannot tell, and says no, as before the check.
func deletedLockHeld(path string, self os.FileInfo) bool {
	st, ok := self.Sys().(*syscall.Stat_t)
	locks, err := os.ReadFile("/proc/locks")
	if !ok || err != nil {
		return false
	}
	takers := map[string][]uint64{} // pid: inodes of its locks
	for _, line := range bytes.Split(locks, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) < 6 || string(f[1]) != "FLOCK" { // "->": a blocked waiter, holding nothing
			continue
		}
		id := bytes.Split(f[5], []byte(":"))
		ino, err := strconv.ParseUint(string(id[len(id)-1]), 10, 64)
		if err == nil && len(id) == 3 && ino != uint64(st.Ino) {
			takers[string(f[4])] = append(takers[string(f[4])], ino)
		}
	}
	want := deletedNames(path)
	for pid, inodes := range takers {
		open, err := openedBy(pid)
		if err != nil {
			continue
		}
		for _, ino := range inodes {
			if target, ok := open[ino]; ok && want[target] {
				return true
			}
		}
	}
	// /proc/locks is no proof of absence: it is read a page at a time, each
	// page listed afresh, so a lock let go meanwhile in an earlier page
	// moves the rest up and one line is never seen (many processes taking
	// and letting go locks: a CI host). Its "yes" stands; a "no" is
	// confirmed by each descriptor's own locks (anyHolds).
	return anyHolds(want)
}

// openedBy maps the inodes that process pid has open to their names.
func openedBy(pid string) (map[uint64]string, error) {
	dir := "/proc/" + pid + "/fd"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	open := map[uint64]string{}
	for _, fd := range fds {
		p := dir + "/" + fd.Name()
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			if target, err := os.Readlink(p); err == nil {
				open[uint64(st.Ino)] = target
			}
		}
	}
	return open, nil
}

// anyHolds reports whether a process that this one may inspect has open a
// file named in want and holds a flock(2) lock through that descriptor
// (its fdinfo lists the lock; the kernel reads it under the file's lock
// list, at once): a descriptor of the deleted file that holds no lock (a
// fire still waiting on it) is not one.
func anyHolds(want map[string]bool) bool {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		dir := "/proc/" + p.Name()
		fds, err := os.ReadDir(dir + "/fd") // another user's: not readable, and not one of this user's runs
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if target, err := os.Readlink(dir + "/fd/" + fd.Name()); err != nil || !want[target] {
				continue
			}
			info, err := os.ReadFile(dir + "/fdinfo/" + fd.Name())
			if err != nil {
				continue
			}
			for _, line := range bytes.Split(info, []byte("\n")) {
				if f := bytes.Fields(line); len(f) > 2 && string(f[0]) == "lock:" && string(f[2]) == "FLOCK" {
					return true
				}
			}
		}
	}
	return false
}

// deletedNames are the names /proc gives a deleted file that was at path.
func deletedNames(path string) map[string]bool {
	want := map[string]bool{path + " (deleted)": true}
	if abs, err := filepath.Abs(path); err == nil {
		want[abs+" (deleted)"] = true
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		want[filepath.Join(real, filepath.Base(path))+" (deleted)"] = true
	}
	return want
}
