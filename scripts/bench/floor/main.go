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
	"syscall"

	"github.com/catchup/catchup/scripts/bench/internal/spawn"
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
	return spawn.Run(args[1:], f)
}
