package cmd

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/catchup/catchup/internal/jobsup"
)

// stopDeadline is how long a stopped catchup may go on with no job of its
// own running before it exits anyway. Longer than a SQLite ledger's busy
// wait (30 s, another process's write), so a record on its way is not cut
// for a slow neighbour; an answer that takes longer is not coming: a
// PostgreSQL server that stopped answering mid-statement, an open(2) of a
// FIFO put where a file was expected. A job's own stop is not this: a job
// still running after the stop is governed by --grace (scan, daemon) or
// waited for (run), and the deadline counts from the end of the last one.
const stopDeadline = 40 * time.Second

// watchStop runs once a stop signal (first) has ended the command's
// context. Waiting for a job is left to the runner (which forwards every
// signal to it); waiting for anything else ends, at a second stop signal
// or stopDeadline after the first (or after the last job ended), in exit
// 128+N of the first signal, after one line on stderr saying what catchup
// was waiting for and what it leaves. exitOnce is the command's exit.
func watchStop(first syscall.Signal, ch <-chan os.Signal, exitOnce func(int), deadline time.Duration) {
	tick := time.NewTicker(deadline / 40)
	defer tick.Stop()
	_, seq := jobsup.Running()
	quiet := time.Now() // since when no job started or ended
	for {
		select {
		case s := <-ch:
			sig, _ := s.(syscall.Signal)
			if n, _ := jobsup.Running(); n > 0 || reloads(sig) {
				continue // the runner forwards it to the job; the daemon reloads
			}
			forcedStop(first, fmt.Sprintf("%s again while stopping", signalName(sig)), exitOnce)
			return
		case <-tick.C:
			n, now := jobsup.Running()
			if n > 0 || now != seq {
				seq, quiet = now, time.Now()
				continue
			}
			if time.Since(quiet) >= deadline {
				forcedStop(first, fmt.Sprintf("still stopping %s after %s, with no job running", signalName(first), deadline), exitOnce)
				return
			}
		}
	}
}

var forcedLine sync.Once

// forcedStop says why catchup exits before its work in progress returns,
// what it was waiting for and what that leaves, then exits 128+N.
func forcedStop(first syscall.Signal, why string, exitOnce func(int)) {
	forcedLine.Do(func() {
		fmt.Fprintf(os.Stderr, "catchup: %s: exiting now, not waiting for %s; "+
			"what it had not recorded stays as the ledger has it (a run left running is interrupted by a later scan, which replays its slot)\n",
			why, waitingFor())
	})
	exitOnce(128 + int(first))
}

// waitingFor names what the process is stuck in, from its goroutines'
// stacks: the call that has not returned is the one thing that knows.
func waitingFor() string {
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	var open, pg, sqlite bool
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "cmd.watchStop") || strings.Contains(g, "cmd.forcedStop") {
			continue
		}
		open = open || strings.Contains(g, "syscall.openat") || strings.Contains(g, "os.openFileNolog") || strings.Contains(g, "libc.Xopen")
		pg = pg || strings.Contains(g, "/store/postgres") || strings.Contains(g, "jackc/pgx")
		sqlite = sqlite || strings.Contains(g, "/store/sqlite") || strings.Contains(g, "modernc.org/sqlite")
	}
	switch {
	case open && sqlite:
		return "an open(2) of a file of the SQLite ledger that has not returned (a FIFO or a device in place of the ledger's -shm, -wal or -journal file?)"
	case open:
		return "an open(2) that has not returned (a FIFO or a device where a file was expected?)"
	case pg:
		return "the PostgreSQL ledger, which has not answered (a server or network that stopped answering?)"
	case sqlite:
		return "the SQLite ledger, which has not answered (another process holding it, or a hung file system?)"
	}
	return "the work in progress"
}
