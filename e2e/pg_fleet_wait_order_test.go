package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetWaitRunsTheOldestClaimFirst: host-b's fire of 01:01 claims its
// slot and waits (--wait) for host-a's run of 01:00; host-a's own fire of
// 01:02 waits behind that run on host-a's flock, which it takes the moment
// the job exits. When the run ends, 01:01 runs before 01:02: the task's
// lock goes to its oldest waiting claim, not to the host that asks first.
// Before, host-a's fires took the lock one after another while host-b's
// claimed slot waited, "running", for as long as host-a had later slots.
// Also with host-b's clock 20 s behind host-a's, a skew well under the
// lease (10m here) as docs/distributed.md allows: host-b's waiting claim
// beats on its own clock, and a window shorter than the lease (10 s, at
// first) took it for gone (found by review).
func TestFleetWaitRunsTheOldestClaimFirst(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	for name, olderAt := range map[string]string{
		"clocks agree":       "2026-11-20T01:01:59Z",
		"host-b 20 s behind": "2026-11-20T01:01:39Z",
	} {
		t.Run(name, func(t *testing.T) { fleetWaitOrder(t, olderAt) })
	}
}

// fleetWaitOrder is TestFleetWaitRunsTheOldestClaimFirst with host-b's
// fire of 01:01 at olderAt, on host-b's clock.
func fleetWaitOrder(t *testing.T, olderAt string) {
	db := pgLedger(t)
	a, b := fleetHost(t, db, "host-a"), fleetHost(t, db, "host-b")
	ran := filepath.Join(t.TempDir(), "ran.log")
	fire := func(h *host, now, name, wait string) *catchupProc {
		p := h.catchup(now, "run", "--task", "w", "--cron", "* * * * *", "--tz", "UTC", "--lease", "10m", "--wait", "5m",
			"--", "sh", "-c", `echo "`+name+` $CATCHUP_SLOT" >> `+ran+wait)
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() }) // nothing, once it exited
		return p
	}
	running := func() int {
		p := a.catchup("2026-11-20T01:02:00Z", "history", "w", "--status", "running", "-o", "json")
		p.cmd.Run()
		return strings.Count(p.stdout.String(), `"slot"`)
	}
	// Times within two seconds of each other: a waiting claim's heartbeats
	// are judged by the other host's clock.
	long := fire(a, "2026-11-20T01:00:58Z", "a1", `; touch "$W/started"; while [ ! -e "$W/release" ]; do sleep 0.05; done`)
	t.Cleanup(func() { touch(t, filepath.Join(a.dir, "release")) }) // also when the test fails early
	waitFile(t, filepath.Join(a.dir, "started"))
	older := fire(b, olderAt, "b", "")
	waitFor(t, "host-b's fire of 01:01 to claim its slot and wait", func() bool { return running() == 2 })
	later := fire(a, "2026-11-20T01:02:00.5Z", "a2", "")
	touch(t, filepath.Join(a.dir, "release"))
	for _, p := range []*catchupProc{long, older, later} {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("a fire: %v %s", err, p.stderr.String())
		}
	}
	want := "a1 2026-11-20T01:00:00Z|b 2026-11-20T01:01:00Z|a2 2026-11-20T01:02:00Z"
	if got := strings.Join(readLines(t, ran), "|"); got != want {
		t.Errorf("ran %q\nwant %q (oldest slot first)", got, want)
	}
}
