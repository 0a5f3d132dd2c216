package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFleetWaitWaitsForAnotherHost: --wait waits for the task's run on
// another host of the fleet (the task's ledger lock), as it waits for one
// on its own host, and then runs; it does not give up at once with 75.
func TestFleetWaitWaitsForAnotherHost(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	a, b := fleetHost(t, db, "host-a"), fleetHost(t, db, "host-b")
	ran := filepath.Join(t.TempDir(), "ran.log")
	long := a.catchup("2026-11-20T01:00:05Z", "run", "--task", "w", "--manual", "--", "sh", "-c",
		`echo a >> `+ran+`; touch "$W/started"; while [ ! -e "$W/release" ]; do sleep 0.05; done`)
	if err := long.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { touch(t, filepath.Join(a.dir, "release")); long.cmd.Wait() }) // also when the test fails early
	waitFile(t, filepath.Join(a.dir, "started"))
	waiter := b.catchup("2026-11-20T01:00:06Z", "run", "--task", "w", "--manual", "--wait", "1m", "--", "sh", "-c", `echo b >> `+ran)
	if err := waiter.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { waiter.cmd.Process.Kill() }) // nothing, once it exited
	exited := make(chan error, 1)
	go func() { exited <- waiter.cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("--wait gave up while host-a's run went on: %v %s", err, waiter.stderr.String())
	case <-time.After(time.Second): // still waiting, as it should
	}
	touch(t, filepath.Join(a.dir, "release"))
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the waiting run: %v %s", err, waiter.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the waiting run did not run within 30s of host-a's run's end")
	}
	if got := strings.Join(readLines(t, ran), " "); got != "a b" {
		t.Errorf("ran %q, want a then b", got)
	}
}
