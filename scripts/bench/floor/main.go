// Command floor is the floor of scripts/bench.sh: what any Go wrapper of a
// cron job pays with no ledger at all. It takes flock(2) on LOCKFILE without
// waiting (exit 75 when held, as catchup run), starts COMMAND with the lock's
// descriptor handed down (as catchup and flock(1) do), waits for it and exits
// with its status. Built with the release flags, it shows how close to
// flock(1) a Go program can get: the Go runtime's start and os/exec.
//
//	floor LOCKFILE COMMAND [ARG...]
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: floor LOCKFILE COMMAND [ARG...]")
		return 2
	}
	f, err := os.OpenFile(args[0], os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 125
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return 75
		}
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 125
	}
	c := exec.Command(args[1], args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.ExtraFiles = []*os.File{f}
	err = c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 127
	}
}
