// Package hangup catches SIGHUP for `catchup daemon` from its package init,
// milliseconds before the command runs: the daemon reloads on SIGHUP, and
// until a handler is in place the signal's default action ends the
// process (exit 129). The package inits of the binary (SQLite's, the
// PostgreSQL driver's, cobra's) and the start of the command take 3-10 ms,
// in which a `kill -HUP` sent as the daemon starts (a reload hook of a
// supervisor, `docker kill -s HUP`, the PID 1 init forwarding one) killed
// it. The window left is the runtime's own start and the inits of the few
// standard packages this one imports.
//
// As PID 1, the daemon's init holds a SIGHUP back until its daemon child
// has caught it here (ReadyEnv).
//
// The daemon takes the caught signals over once its own handler is in
// place (Handover): one that came meanwhile becomes a reload. Any other
// command gives them back (Release): a SIGHUP that came meanwhile is
// raised again, to end it as it would have.
package hangup

import (
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

// early holds the SIGHUPs caught since init; nil when none are (the
// arguments name no daemon: other commands pay nothing).
var early chan os.Signal

// ReadyEnv names, in the environment of the daemon that a daemon started as
// PID 1 runs as its child, the descriptor of a pipe its init waits on
// (reaper.RunHolding): the init holds a SIGHUP back until this package
// has caught it and closed the descriptor. It is removed from the
// environment at once, so that jobs never see it.
const ReadyEnv = "CATCHUP_DAEMON_INIT_READY_FD"

func init() {
	if mayBeDaemon(os.Args[1:]) {
		early = make(chan os.Signal, 1)
		signal.Notify(early, syscall.SIGHUP)
	}
	if fd, err := strconv.Atoi(os.Getenv(ReadyEnv)); err == nil && fd > 2 {
		os.Unsetenv(ReadyEnv)
		syscall.Close(fd) // the init passes SIGHUP on from now
	}
}

// mayBeDaemon reports whether args may invoke `catchup daemon`: a word
// daemon before any "--". It is a guess made before the flags are parsed
// (a flag's value may be "daemon"): the command, once known, releases
// what it need not keep.
func mayBeDaemon(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "daemon":
			return true
		}
	}
	return false
}

// MayBeDaemon is mayBeDaemon, for cmd's stop watch: until the command is
// known, a SIGHUP of a process that may be the daemon is no stop.
func MayBeDaemon(args []string) bool { return mayBeDaemon(args) }

// Handover stops catching SIGHUP here and passes one caught since init to
// hup, whose handler the daemon has installed (signal.Notify) before the
// call: no SIGHUP is lost between the two.
func Handover(hup chan<- os.Signal) {
	if early == nil {
		return
	}
	signal.Stop(early)
	select {
	case s := <-early:
		select {
		case hup <- s:
		default: // one is pending there already: a reload comes anyway
		}
	default:
	}
	early = nil
}

// Release stops catching SIGHUP here, for a command that is not the
// daemon, and raises again a SIGHUP caught since init: the command's own
// handler takes it if it has one, else it ends the process as it would
// have.
func Release() {
	if early == nil {
		return
	}
	signal.Stop(early)
	select {
	case <-early:
		syscall.Kill(os.Getpid(), syscall.SIGHUP)
	default:
	}
	early = nil
}
