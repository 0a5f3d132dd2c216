package scripttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptWaitLimit bounds every wait of a script: generous, so that a loaded
// machine is slow but never fails a script by chance.
const scriptWaitLimit = 2 * time.Minute

// The scripts' waits on files and processes, each with a deadline and a
// message that says what never happened:
//
//	waitfile started            # until the file exists
//	waitgone job.pid            # until the process whose pid the file holds has exited
//	waitopen waiter.pid w.lock  # until that process (once its pid is in the file) has w.lock open
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	path := ts.MkAbs(args[0])
	scriptWait(ts, args[0]+" to appear", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

func cmdWaitGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitgone PIDFILE")
	}
	pid, ok := scriptPID(ts, args[0])
	if !ok {
		ts.Fatalf("waitgone: no pid in %s", args[0])
	}
	scriptWait(ts, fmt.Sprintf("process %d (%s) to exit", pid, args[0]), func() bool { return pidGone(pid) })
}

func cmdWaitOpen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitopen PIDFILE NAME")
	}
	scriptWait(ts, fmt.Sprintf("the process of %s to open a file named %s", args[0], args[1]), func() bool {
		pid, ok := scriptPID(ts, args[0])
		if !ok {
			return false
		}
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			if target, err := os.Readlink(fd); err == nil && filepath.Base(target) == args[1] {
				return true
			}
		}
		return false
	})
}

func scriptWait(ts *testscript.TestScript, what string, cond func() bool) {
	deadline := time.Now().Add(scriptWaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			ts.Fatalf("gave up after %v waiting for %s", scriptWaitLimit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// scriptPID reads a pid file written by a script's job; ok is false while
// it is missing or not written whole yet.
func scriptPID(ts *testscript.TestScript, file string) (pid int, ok bool) {
	b, err := os.ReadFile(ts.MkAbs(file))
	if err != nil {
		return 0, false
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil
}
