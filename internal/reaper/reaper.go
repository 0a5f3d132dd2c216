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
//   - RunHolding holds the signals it is told to hold until the program
//     says it catches them (closes a pipe), then passes each on once: a
//     program that starts by their default action (a Go program's first
//     milliseconds) is not ended by one.
//   - Run returns the program's exit status once it exits: its code, or
//     128+N when signal N killed it, as a shell reports it.
package reaper

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

// Run starts the program path with argv and env as the only child of this
// process, sharing its stdin, stdout and stderr, forwards the signals fwd
// to it, reaps every child that exits, and returns the program's exit
// status once it has exited.
func Run(path string, argv, env []string, fwd ...os.Signal) (int, error) {
	return run(path, argv, env, nil, fwd)
}

// ReadyFD is the descriptor RunHolding gives the program: the write end of
// a pipe, which the program closes once it catches the held signals.
const ReadyFD = 3

// RunHolding is Run for a program that catches the signals hold only once
// it has started: until then their default action would end it (a Go
// program's start takes milliseconds). The program gets a pipe as its
// descriptor ReadyFD and closes it once it catches them (or exits); a
// signal of hold that comes before is held back, and passed on then, once
// however many came.
func RunHolding(path string, argv, env []string, hold []os.Signal, fwd ...os.Signal) (int, error) {
	return run(path, argv, env, hold, fwd)
}

func run(path string, argv, env []string, hold, fwd []os.Signal) (int, error) {
	sigs := make(chan os.Signal, 16)
	// Before the child exists: no SIGCHLD and no signal to forward is lost.
	signal.Notify(sigs, append([]os.Signal{syscall.SIGCHLD}, fwd...)...)
	defer signal.Stop(sigs)
	files := []uintptr{0, 1, 2}
	var ready chan struct{} // closed once the program is ready; nil: it is
	var r, w *os.File
	if len(hold) > 0 {
		var err error
		if r, w, err = os.Pipe(); err != nil {
			return 0, fmt.Errorf("start %s: %w", path, err)
		}
		defer r.Close()
		files = append(files, w.Fd())
		ready = make(chan struct{})
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: files})
	if w != nil {
		w.Close() // the program's copy is the only one left: closed, or gone with it, the pipe ends
	}
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", path, err)
	}
	if ready != nil {
		go func() { io.Copy(io.Discard, r); close(ready) }()
	}
	held := map[os.Signal]bool{}
	for {
		// The child may have exited before a SIGCHLD was caught: reap first.
		if status, exited := reap(pid); exited {
			return status, nil
		}
		select {
		case sig := <-sigs:
			switch {
			case sig == syscall.SIGCHLD:
			case ready != nil && slices.Contains(hold, sig):
				held[sig] = true
			default:
				syscall.Kill(pid, sig.(syscall.Signal))
			}
		case <-ready:
			ready = nil
			for sig := range held {
				syscall.Kill(pid, sig.(syscall.Signal))
			}
			clear(held)
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
