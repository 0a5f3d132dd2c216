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
// The daemon takes the caught signals over once its own handler is in
// place (Handover): one that came meanwhile becomes a reload. Any other
// command gives them back (Release): a SIGHUP that came meanwhile is
// raised again, to end it as it would have.
package hangup

import (
	"os"
	"os/signal"
	"syscall"
)

// early holds the SIGHUPs caught since init; nil when none are (the
// arguments name no daemon: other commands pay nothing).
var early chan os.Signal

func init() {
	if mayBeDaemon(os.Args[1:]) {
		early = make(chan os.Signal, 1)
		signal.Notify(early, syscall.SIGHUP)
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
