package e2e

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFleetRetryKeepsTheTask: during a failed attempt's --retry-delay the
// task's ledger lock passes to the retry (claimed when the delay begins),
// so another host's run of the task finds it held (75) and the retry runs.
// It used to be free meanwhile: the other host ran, and the retry was
// given back as a lock skip.
func TestFleetRetryKeepsTheTask(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	a, b := fleetHost(t, db, "host-a"), fleetHost(t, db, "host-b")
	ran := filepath.Join(t.TempDir(), "ran.log")
	retrying := a.catchup("2026-11-20T01:00:05Z", "run", "--task", "r", "--manual", "--retries", "1", "--retry-delay", "3s",
		"--", "sh", "-c", `if [ ! -e "$W/failed" ]; then touch "$W/failed"; exit 1; fi; echo a >> `+ran)
	if err := retrying.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { retrying.cmd.Process.Kill(); retrying.cmd.Wait() }) // nothing, once it exited
	waitFile(t, filepath.Join(a.dir, "failed"))
	// The first attempt's outcome is recorded once its retry is claimed.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(retrying.stderr.String(), "retrying in") {
		if time.Now().After(deadline) {
			t.Fatalf("host-a did not say it retries within 30s: %s", retrying.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	other := b.catchup("2026-11-20T01:00:06Z", "run", "--task", "r", "--manual", "--", "sh", "-c", `echo b >> `+ran)
	err := other.cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 75 {
		t.Fatalf("host-b's run during host-a's retry delay: %v, want exit 75 (the task is host-a's); %s", err, other.stderr.String())
	}
	if err := retrying.cmd.Wait(); err != nil {
		t.Fatalf("host-a's retry: %v %s", err, retrying.stderr.String())
	}
	if got := strings.Join(readLines(t, ran), " "); got != "a" {
		t.Errorf("ran %q, want only host-a's retry", got)
	}
}
