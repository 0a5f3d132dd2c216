package cmd

import (
	"fmt"
	"os"
	"syscall"

	"github.com/catchup/catchup/internal/hangup"
	"github.com/catchup/catchup/internal/reaper"
)

// daemonChildEnv marks, in its environment, the daemon that a daemon
// started as PID 1 runs as its only child: that one is the daemon, not
// the init (its pid is not 1 anyway; the mark keeps it so in a namespace
// where it could be). It is removed from the daemon's environment before
// anything reads it, so its jobs never see it.
const daemonChildEnv = "CATCHUP_DAEMON_INIT_CHILD"

// daemonSignals are the signals the daemon acts on (runDaemon's handlers):
// the init passes each on to it.
var daemonSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP}

// asInit runs the daemon under an init of its own when this process is
// PID 1 (a container's entrypoint without tini or docker run --init), the
// way tini does: the daemon runs again as the only child of this process
// (same program, arguments, environment and standard streams), which
// forwards it the daemon's signals, reaps every child (the orphans jobs
// leave are re-parented to PID 1) and exits with the daemon's status
// (128+N if signal N killed it). It returns false in the daemon itself.
//
// The daemon never reaps beside os/exec, which waits for its jobs' own
// pids: a job's exit status stays the daemon's to record.
func asInit(pid int) (bool, error) {
	if os.Getenv(daemonChildEnv) != "" {
		os.Unsetenv(daemonChildEnv)
		return false, nil
	}
	if pid != 1 {
		return false, nil
	}
	self, err := os.Executable()
	if err != nil {
		return true, failure(fmt.Errorf("as PID 1, run the daemon as a child to reap orphans: %w (or run it under tini)", err))
	}
	// SIGHUP is held back until the child catches it (hangup.ReadyEnv):
	// while it starts, its default action would end the child, and PID 1.
	env := append(os.Environ(), daemonChildEnv+"=1", fmt.Sprintf("%s=%d", hangup.ReadyEnv, reaper.ReadyFD))
	status, err := reaper.RunHolding(self, os.Args, env, []os.Signal{syscall.SIGHUP}, daemonSignals...)
	if err != nil {
		return true, failure(fmt.Errorf("as PID 1, run the daemon as a child to reap orphans: %w (or run it under tini)", err))
	}
	if status == exitOK {
		return true, nil
	}
	return true, &exitStatus{code: status}
}
