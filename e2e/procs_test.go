package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// waitLimit bounds every wait on a process or a file: generous, so that a
// loaded machine is slow but never fails a test by chance. It is a guard
// against a hang, not a measure of speed: TestDaemonReplicas alone waits
// about 23 s by design (20 one-second slots), and 30 s failed it in CI on a
// machine where starting a process costs four times what it did.
const waitLimit = 2 * time.Minute

// catchupProc is a real catchup process: this test binary re-run as the
// catchup command.
type catchupProc struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
}

// syncBuffer is a bytes.Buffer that a test may read while the process
// still writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newCatchup prepares `catchup args...` with a ledger and a clock (now, if
// not empty). It runs as the test's host: in the host's directory (its
// HOME, its state directory and its working directory, never the
// checkout), with none of the CATCHUP_* settings of whoever runs the tests,
// and in a process group of its own, so that a test can kill the whole tree.
func newCatchup(t *testing.T, db, now string, args ...string) *catchupProc {
	t.Helper()
	home := hostDir(t)
	p := &catchupProc{cmd: exec.Command(os.Args[0], args...)}
	p.cmd.Dir = home
	p.cmd.Env = append(cleanEnv(), asCatchup+"=1", "CATCHUP_DB="+db, "CATCHUP_HOST=testhost", "TZ=UTC",
		"HOME="+home, "CATCHUP_STATE_DIR="+filepath.Join(home, "state"), "CATCHUP_NOTE_DIR="+filepath.Join(home, "notes"))
	if now != "" {
		p.cmd.Env = append(p.cmd.Env, "CATCHUP_NOW="+now)
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return p
}

// cleanEnv is this process's environment without what would change how
// catchup behaves (CATCHUP_*, XDG_STATE_HOME).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CATCHUP_") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	return env
}

var hostDirs sync.Map // *testing.T -> its host directory

// hostDir is the directory of the test's simulated host, made once per test.
func hostDir(t *testing.T) string {
	if d, ok := hostDirs.Load(t); ok {
		return d.(string)
	}
	d := t.TempDir()
	hostDirs.Store(t, d)
	t.Cleanup(func() { hostDirs.Delete(t) })
	return d
}

// run runs the process to the end and returns its exit status.
func (p *catchupProc) run(t *testing.T) int {
	t.Helper()
	err := p.cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	default:
		t.Fatalf("run catchup: %v", err)
		return -1
	}
}

// powerCut models the power going off under running processes: every
// process of the groups pgids is frozen first (SIGSTOP), and only once all
// are stopped are they SIGKILLed. Killed one after the other, a catchup
// could see its job die and record the run failed before its own kill: a
// fault no power cut makes.
func powerCut(t *testing.T, pgids ...int) {
	t.Helper()
	for _, g := range pgids {
		if err := syscall.Kill(-g, syscall.SIGSTOP); err != nil {
			t.Fatalf("freeze process group %d: %v", g, err)
		}
	}
	deadline := time.Now().Add(waitLimit)
	for running := unfrozen(pgids); len(running) > 0; running = unfrozen(pgids) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for process groups %v to freeze; still running (pid/tid:state): %v",
				waitLimit, pgids, running)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, g := range pgids {
		syscall.Kill(-g, syscall.SIGKILL)
	}
}

// unfrozen lists the processes of the groups pgids that may still run,
// as "pid/tid:state" of their running threads. A process is frozen when
// each of its threads is stopped (T), dead, or sleeping uninterruptibly
// (D): such a thread, its SIGSTOP pending, runs no code of its own before
// it stops, and may never leave that sleep while the others are stopped: a
// shell, or a Go thread of os/exec, in vfork waits on a child that the
// stop froze before its exec (a CI run waited 2 minutes on one, a Go
// process's, and failed). What its system call finishes meanwhile (a sync)
// is a moment of the cut, as if it came a little later for that thread.
func unfrozen(pgids []int) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range procs {
		if _, pgrp := procStat(filepath.Join(dir, "stat")); !contains(pgids, pgrp) {
			continue
		}
		tasks, _ := filepath.Glob(filepath.Join(dir, "task", "[0-9]*", "stat"))
		for _, task := range tasks {
			state, _ := procStat(task)
			if state == 0 || strings.ContainsRune("TtZXD", state) {
				continue
			}
			out = append(out, fmt.Sprintf("%s/%s:%c", filepath.Base(dir), filepath.Base(filepath.Dir(task)), state))
		}
	}
	return out
}

// procStat reads the state and the process group from a /proc stat file
// (zero values when the process is gone).
func procStat(path string) (state rune, pgrp int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return 0, 0
	}
	pgrp, _ = strconv.Atoi(f[2])
	return rune(f[0][0]), pgrp
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// waitFor polls cond until it holds, and fails the test naming what it
// waited for once waitLimit has passed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", waitLimit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	waitFor(t, path+" to appear", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// waitGone waits until process pid has exited (a zombie nobody reaped yet
// counts as gone: it holds no lock and runs nothing).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("process %d to exit", pid), func() bool {
		state, _ := procStat(fmt.Sprintf("/proc/%d/stat", pid))
		return state == 0 || state == 'Z' || state == 'X'
	})
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}
