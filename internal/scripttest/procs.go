package scripttest

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// The scripts' looks at processes whose pids their jobs wrote, each in
// this process, at once (no shell started between a wait and its act):
//
//	gone stubborn.pid           # the process has exited (a zombie counts)
//	! gone stubborn.pid         # it is still alive
//	signal STOP pid             # sends SIGSTOP to the process
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	pid, ok := scriptPID(ts, args[0])
	if !ok {
		ts.Fatalf("gone: no pid in %s", args[0])
	}
	switch gone := pidGone(pid); {
	case gone && neg:
		ts.Fatalf("process %d (%s) is gone", pid, args[0])
	case !gone && !neg:
		ts.Fatalf("process %d (%s) is still alive", pid, args[0])
	}
}

// pidGone reports whether process pid has exited, reading its state once:
// a shell's `[ -e /proc/$p ] && grep ... /proc/$p/stat` reads twice, and
// took a zombie reaped between the two reads for alive. A zombie nobody
// reaped yet counts as gone: it holds nothing.
func pidGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := strings.LastIndexByte(string(b), ')')
	return err != nil || i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}

// signals are the signals a script sends with `signal`.
var signals = map[string]syscall.Signal{
	"STOP": syscall.SIGSTOP, "CONT": syscall.SIGCONT, "KILL": syscall.SIGKILL,
	"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP,
}

// cmdSignal sends a signal to the process whose pid a file holds, from
// this process: right after the wait before it, where `exec sh -c 'kill
// -STOP $(cat pid)'` first starts a shell (a second and more on a loaded
// machine).
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: signal NAME PIDFILE")
	}
	sig, ok := signals[args[0]]
	if !ok {
		ts.Fatalf("signal: unknown signal %q", args[0])
	}
	pid, ok := scriptPID(ts, args[1])
	if !ok {
		ts.Fatalf("signal: no pid in %s", args[1])
	}
	if err := syscall.Kill(pid, sig); err != nil {
		ts.Fatalf("signal %s to process %d (%s): %v", args[0], pid, args[1], err)
	}
}
