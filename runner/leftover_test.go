package runner

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bgPid reads the pid a test's command wrote to path.
func bgPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the job wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file %q: %v", data, err)
	}
	return pid
}

// assertGone fails unless pid is gone (or a zombie) right after Run
// returned, and kills it if not so that nothing outlives the test.
func assertGone(t *testing.T, pid int, what string) {
	t.Helper()
	if !processGone(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("%s (pid %d) outlived Run: a background child left in the job's process group must be ended", what, pid)
	}
}

// TestRunEndsLeftoverGroup: when the main process exits, what is left of
// its process group is ended before Run returns (SIGTERM, then SIGKILL
// after KillAfter): a background child holding the task's lock (fd 3) or
// the output pipe must not outlive its run. Real processes, each case
// with the child's stdout redirected, held, or not captured at all.
func TestRunEndsLeftoverGroup(t *testing.T) {
	for name, tc := range map[string]struct {
		script    string
		noCapture bool
		left      int
	}{
		"detached output":  {script: `sleep 30 </dev/null >/dev/null 2>&1 & echo $! > "$1"; echo done`, left: 1},
		"holding the pipe": {script: `sleep 30 & echo $! > "$1"; echo done`, left: 1},
		"no capture":       {script: `sleep 30 & echo $! > "$1"`, noCapture: true, left: 1},
		"two of them":      {script: `sleep 30 & sleep 30 & echo $! > "$1"`, left: 2},
		"ignores SIGTERM":  {script: `sh -c 'trap "" TERM; echo $$ > "$1"; echo ready; exec sleep 30' sh "$1" >/dev/null & while [ ! -s "$1" ]; do sleep 0.01; done`, left: 1},
	} {
		t.Run(name, func(t *testing.T) {
			pidFile := t.TempDir() + "/bg.pid"
			start := time.Now()
			res := run(t, Config{
				Argv:       sh(tc.script, pidFile),
				TailSize:   100,
				NoCapture:  tc.noCapture,
				KillAfter:  300 * time.Millisecond,
				OutputWait: 300 * time.Millisecond,
			})
			if res.ExitCode != 0 {
				t.Fatalf("ExitCode=%d, want the main process's 0", res.ExitCode)
			}
			assertGone(t, bgPid(t, pidFile), "the background child")
			if res.Leftover != tc.left {
				t.Errorf("Leftover=%d, want %d", res.Leftover, tc.left)
			}
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("Run took %v", elapsed)
			}
		})
	}
}

// TestRunLeavesWhatLeftTheGroup: a process that left the job's group
// (setsid: a real daemon) is not the run's; Run neither waits for it nor
// ends it, and a group with nothing left reports no leftover.
func TestRunLeavesWhatLeftTheGroup(t *testing.T) {
	pidFile := t.TempDir() + "/bg.pid"
	res := run(t, Config{
		Argv:       sh(`setsid sh -c 'echo $$ > "$1"; exec sleep 30' sh "$1" </dev/null >/dev/null 2>&1 & while [ ! -s "$1" ]; do sleep 0.01; done`, pidFile),
		KillAfter:  300 * time.Millisecond,
		OutputWait: 300 * time.Millisecond,
	})
	pid := bgPid(t, pidFile)
	defer syscall.Kill(pid, syscall.SIGKILL)
	if processGone(pid) {
		t.Fatalf("the setsid daemon (pid %d) was ended: it left the job's group", pid)
	}
	if res.ExitCode != 0 || res.Leftover != 0 {
		t.Fatalf("ExitCode=%d Leftover=%d, want 0, 0", res.ExitCode, res.Leftover)
	}
}

// TestRunStoppedBySignalBlamesNoLeftover: a run stopped by a signal
// catchup forwarded to the whole group leaves no "leftover": what is still
// in the group when the main child exits got that signal too, and is
// dying of it (here a child that takes a moment to exit). Counted, it
// told the operator that the job leaves a daemon behind, which it does not.
// It is still stopped, and Run still waits for it.
func TestRunStoppedBySignalBlamesNoLeftover(t *testing.T) {
	pidFile := t.TempDir() + "/bg.pid"
	out := newSyncBuffer("ready")
	go func() {
		<-out.ready
		_ = syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	}()
	// The background child traps USR1, then takes half a second to exit;
	// the main child (exec sleep) dies of USR1 at once.
	script := `sh -c 'trap "sleep 0.5; exit 0" USR1; echo $$ > "$1"; while :; do sleep 0.05; done' sh "$1" &
while [ ! -s "$1" ]; do sleep 0.01; done; echo ready; exec sleep 30`
	res := run(t, Config{Argv: sh(script, pidFile), Stdout: out, Signals: []os.Signal{syscall.SIGUSR1},
		KillAfter: 5 * time.Second, OutputWait: 300 * time.Millisecond})
	if res.Forwarded != syscall.SIGUSR1 {
		t.Fatalf("Forwarded = %v, want SIGUSR1", res.Forwarded)
	}
	if res.Leftover != 0 {
		t.Errorf("Leftover=%d, want 0: the group was dying of the forwarded signal", res.Leftover)
	}
	assertGone(t, bgPid(t, pidFile), "the background child")
}
