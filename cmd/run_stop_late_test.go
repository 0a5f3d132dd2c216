package cmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunStopAfterItsJobStartedStopsIt: `catchup run` told to stop by a
// signal that came before the runner caught signals, whose handler ended
// the command's context only once the job had started (a loaded machine),
// stops the job (SIGTERM forwarded), exits 128+15 and records the run
// interrupted. Before, the job never got the signal: it ran to its end and
// catchup exited with its status, 0.
func TestRunStopAfterItsJobStartedStopsIt(t *testing.T) {
	dir := t.TempDir()
	ended := filepath.Join(dir, "ended")
	// The job runs 5 s unless the stop reaches it: a deadline that fails
	// with the job's own exit, 0.
	code, _ := catchupHelper(t, dir, true, "run", "--task", "t", "--", "sh", "-c", `sleep 5; : > "$1"`, "sh", ended)
	if code != 128+15 {
		t.Errorf("catchup run exited %d, want 143: the stop signal never reached its job", code)
	}
	if _, err := os.Stat(ended); err == nil {
		t.Errorf("the job ran to its end after catchup was told to stop")
	}
	if code, out := catchupHelper(t, dir, false, "history", "t", "-o", "json"); code != 0 ||
		!strings.Contains(out, `"status": "interrupted"`) {
		t.Errorf("history exited %d:\n%s\nwant the run recorded interrupted", code, out)
	}
}

// catchupHelper runs catchup with args in a process of its own (this test
// binary, TestHelperCatchup), with a ledger in dir; stopAtStart ends the
// command's context with SIGTERM as its job starts (jobStarted). It
// returns the exit status and the output.
func catchupHelper(t *testing.T, dir string, stopAtStart bool, args ...string) (int, string) {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^TestHelperCatchup$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CATCHUP_") {
			c.Env = append(c.Env, kv)
		}
	}
	c.Env = append(c.Env, "CMD_TEST_HELPER_ARGS="+strings.Join(args, "\n"), "HOME="+dir,
		"CATCHUP_STATE_DIR="+dir, "CATCHUP_DB="+filepath.Join(dir, "catchup.db"))
	if stopAtStart {
		c.Env = append(c.Env, "CMD_TEST_HELPER_STOP_AT_START=1")
	}
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = c.Process.Kill()
		t.Fatalf("catchup %s did not end within 30s", strings.Join(args, " "))
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

func TestHelperCatchup(t *testing.T) {
	args := os.Getenv("CMD_TEST_HELPER_ARGS")
	if args == "" {
		t.Skip("helper process for catchupHelper")
	}
	if os.Getenv("CMD_TEST_HELPER_STOP_AT_START") != "" {
		jobStarted = func(stopWith func(os.Signal)) { stopWith(syscall.SIGTERM) }
	}
	os.Exit(Execute(strings.Split(args, "\n"), os.Exit))
}
