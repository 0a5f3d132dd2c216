// Package reaper is the init a process runs when it is PID 1 (a
// container's entrypoint without tini or docker run --init), the way tini
// and dumb-init do it: it starts the real program as its only child and
// does nothing else but init's work until that child exits.
//
// Invariants:
//   - The init runs no other program and makes no other child: every child
//     it reaps is the program or an orphan re-parented to PID 1. The
//     program's own children (a daemon's jobs) are the program's: the init
//     never waits for them, so it cannot take their exit status from the
//     program (os/exec there waits for its own pids).
//   - Every child is reaped: on each SIGCHLD, wait4(-1, WNOHANG) until none
//     is left to reap (SIGCHLDs coalesce: one may stand for many exits).
//   - The signals handed to Run are forwarded to the program, and only
//     while it has not been reaped: the forwarding and the reaping share one
//     goroutine, so a signal never reaches a pid the kernel gave to another
//     process after the program's exit.
//   - Run returns the program's exit status once it exits: its code, or
//     128+N when signal N killed it, as a shell reports it.
package reaper

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Run starts the program path with argv and env as the only child of this
// process, sharing its stdin, stdout and stderr, forwards the signals fwd
// to it, reaps every child that exits, and returns the program's exit
// status once it has exited.
func Run(path string, argv, env []string, fwd ...os.Signal) (int, error) {
	sigs := make(chan os.Signal, 16)
	// Before the child exists: no SIGCHLD and no signal to forward is lost.
	signal.Notify(sigs, append([]os.Signal{syscall.SIGCHLD}, fwd...)...)
	defer signal.Stop(sigs)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}})
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", path, err)
	}
	for {
		// The child may have exited before a SIGCHLD was caught: reap first.
		if status, exited := reap(pid); exited {
			return status, nil
		}
		if sig := <-sigs; sig != syscall.SIGCHLD {
			syscall.Kill(pid, sig.(syscall.Signal))
		}
	}
}

// reap reaps every child that has exited, without waiting for one that
// runs; it returns the exit status of pid if it was among them.
func reap(pid int) (status int, exited bool) {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil || got <= 0: // ECHILD, or none exited yet
			return status, exited
		case got == pid:
			status, exited = exitStatus(ws), true
		}
	}
}

// exitStatus is a shell's $? for a process that ended with ws.
func exitStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
