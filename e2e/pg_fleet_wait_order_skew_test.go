package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetWaitOldestFirstUnderClockSkew: TestFleetWaitRunsTheOldestClaimFirst
// with host-b's clock 20 s behind host-a's, a skew well under the lease
// (10m here) as docs/distributed.md allows. host-b's waiting claim beats on
// its own clock; judged by host-a's, its beats are 20 s old, and a window
// shorter than the lease (10 s, at first) took it for gone: host-a's 01:02
// ran before 01:01 (found by review).
func TestFleetWaitOldestFirstUnderClockSkew(t *testing.T) {
	db := pgLedger(t)
	a, b := fleetHost(t, db, "host-a"), fleetHost(t, db, "host-b")
	ran := filepath.Join(t.TempDir(), "ran.log")
	fire := func(h *host, now, name, wait string) *catchupProc {
		p := h.catchup(now, "run", "--task", "w", "--cron", "* * * * *", "--tz", "UTC", "--lease", "10m", "--wait", "5m",
			"--", "sh", "-c", `echo "`+name+` $CATCHUP_SLOT" >> `+ran+wait)
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
		return p
	}
	running := func() int {
		p := a.catchup("2026-11-20T01:02:00Z", "history", "w", "--status", "running", "-o", "json")
		p.cmd.Run()
		return strings.Count(p.stdout.String(), `"slot"`)
	}
	long := fire(a, "2026-11-20T01:00:58Z", "a1", `; touch "$W/started"; while [ ! -e "$W/release" ]; do sleep 0.05; done`)
	t.Cleanup(func() { touch(t, filepath.Join(a.dir, "release")) })
	waitFile(t, filepath.Join(a.dir, "started"))
	older := fire(b, "2026-11-20T01:01:39Z", "b", "") // host-b's clock: 20 s behind host-a's
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
		t.Errorf("ran %q\nwant %q (oldest slot first, host-b's clock 20 s behind)", got, want)
	}
}
