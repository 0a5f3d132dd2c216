package daemon

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/catchup/catchup/catchup"
)

// machine is the daemon's machine for one task: its environment, its
// notices in the log, and its jobs' process groups tracked (the daemon
// forwards signals itself: SIGHUP is not the jobs').
func (d *Daemon) machine(t Task, onStart func(pid int)) catchup.Machine {
	m := d.cfg.Machine
	m.Environ = append(append([]string{}, m.Environ...), t.Env...)
	m.JobSignals = []os.Signal{}
	m.Starts = &d.starts // the stop closes it before it is said: no job starts after
	m.JobsKill = d.kill  // the grace's end: each job's runner kills it, judging first
	// A daemon killed alone (an OOM kill, kill -9) leaves no one to record
	// its jobs: they die with it, as in a power cut, and its next start
	// replays their slots once (run on, they ended unrecorded and ran twice).
	m.JobsDieWithIt = true
	// An alert is not tracked as a job: it gets the stop signals, as it
	// would without the daemon, but never a SIGHUP, the daemon's reload.
	m.AlertSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT}
	// The daemon's own stop (its handler, its grace) ends its work: a
	// signal forwarded to an alert does not end the command's context.
	m.Stop = nil
	m.OnJobStart = func(pid int) {
		d.track(t.Def.Name, pid, true)
		if onStart != nil {
			onStart(pid)
		}
	}
	// A job that ended is no longer running, nor signalled at a stop
	// (its group's id is the kernel's to give again), however long the
	// fire (its retries) or the scan (its next replays) goes on.
	m.OnJobEnd = func(pid int) {
		d.track(t.Def.Name, pid, false)
	}
	m.Notice = func(format string, args ...any) {
		d.cfg.Log.Info(fmt.Sprintf(format, args...), "event", "notice", "task", t.Def.Name)
	}
	if u, ok := m.Stderr.(interface{ Underlying() io.Writer }); ok && t.Req.NoCapture {
		// --no-capture: the job gets stderr itself (a file), so that
		// nothing of its output is kept, as for catchup run.
		m.Stderr = u.Underlying()
	}
	return m
}
