package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockHolderLine explains a lock-busy fire when no run of the task is
// recorded running: then what holds the lock is no run but a process a job
// started that still has fd 3 open (one that left the job's process group:
// what was left in it is stopped with its run). It names that process when
// /proc shows it (only processes this user may inspect), else says what it
// must be. "" when a run of the task is recorded running or the ledger
// cannot tell.
func (l *lifecycle) lockHolderLine(ctx context.Context, lock *taskLock) string {
	runs, err := l.st.Running(ctx)
	if err != nil {
		return ""
	}
	for _, r := range runs {
		if r.Task == l.req.Task {
			return ""
		}
	}
	const fix = "close fd 3 in what a job leaves running: `setsid cmd 3>&- &`"
	pids, ours := lockHolders(lock.f)
	switch {
	case ours:
		return "" // a catchup that has not recorded its run yet
	case len(pids) == 0:
		return fmt.Sprintf("task %s: no run is recorded running, but a process still holds the task's lock file open: "+
			"a background process a job started, or a run not recorded yet (%s)", l.req.Task, fix)
	}
	names := make([]string, len(pids))
	for i, pid := range pids {
		names[i] = strconv.Itoa(pid)
		if comm, err := os.ReadFile("/proc/" + names[i] + "/comm"); err == nil {
			names[i] += " (" + strings.TrimSpace(string(comm)) + ")"
		}
	}
	return fmt.Sprintf("task %s: no run is recorded running, but process %s holds the task's lock file %s open: "+
		"a background process a job started (%s)", l.req.Task, strings.Join(names, ", "), lock.f.Name(), fix)
}

// lockHolders lists the other processes that have f's file open, as far as
// /proc shows them; ours is true when one of them is a catchup (this
// binary).
func lockHolders(f *os.File) (pids []int, ours bool) {
	want, err := f.Stat()
	if err != nil {
		return nil, false
	}
	self, _ := os.Executable()
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || pid == os.Getpid() {
			continue
		}
		fds, _ := os.ReadDir(p + "/fd")
		for _, fd := range fds {
			if fi, err := os.Stat(p + "/fd/" + fd.Name()); err == nil && os.SameFile(fi, want) {
				pids = append(pids, pid)
				exe, _ := os.Readlink(p + "/exe")
				ours = ours || (self != "" && exe == self)
				break
			}
		}
	}
	return pids, ours
}
