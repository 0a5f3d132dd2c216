package catchup

import (
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// A task's lock file deleted while a run holds it (the lock directory
// cleaned by tmpfiles, or removed by hand) leaves that run holding a lock
// on a file no one else can open: the next fire creates a new file, locks
// it, and would run beside it. A lock file is therefore vetted before its
// first lock counts: no process may still have open a deleted file of that
// path (a run, its command or an orphan that kept fd 3, or a fire waiting
// for that lock). A vetted file is marked by its content, so that the check
// (a walk of /proc) is paid once per lock file: at a task's first fire and
// after each deletion. Checking that the path still names the locked file
// (flock, then stat) would not do: the new file is the path's, and its lock
// is free.

// vettedMark is a vetted lock file's content.
const vettedMark = "catchup task lock\n"

// ghostRecheck is how long a lock found shadowed by a deleted one counts
// as held (tryLock) before /proc is walked again (a --wait polls every 50ms).
const ghostRecheck = time.Second

// shadowed reports whether the lock just taken on l may not be the task's
// only one: its file is not vetted yet, and a process still has open a
// deleted lock file of the same path. An unshadowed file is marked vetted.
func (l *taskLock) shadowed() bool {
	if fi, err := l.f.Stat(); err == nil && fi.Size() > 0 {
		return false
	}
	if deletedFileOpen(l.f.Name()) {
		l.ghostAt = time.Now()
		return true
	}
	l.ghostAt = time.Time{}
	_, _ = l.f.WriteAt([]byte(vettedMark), 0) // else vetted again next time
	return false
}

// deletedFileOpen reports whether a process that this one may inspect has
// open a deleted file that was at path. Without /proc (not Linux) it
// cannot tell, and says no, as before the check existed.
func deletedFileOpen(path string) bool {
	want := map[string]bool{path + " (deleted)": true}
	if abs, err := filepath.Abs(path); err == nil {
		want[abs+" (deleted)"] = true
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		want[filepath.Join(real, filepath.Base(path))+" (deleted)"] = true
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		dir := "/proc/" + p.Name() + "/fd"
		fds, err := os.ReadDir(dir) // another user's: not readable, and not one of this user's runs
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if target, err := os.Readlink(dir + "/" + fd.Name()); err == nil && want[target] {
				return true
			}
		}
	}
	return false
}
