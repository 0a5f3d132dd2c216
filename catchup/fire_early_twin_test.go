package catchup

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestEarlyFireOfAFleet: two hosts of a fleet fire the 02:00 line, one on
// time, the other with a clock 2 s behind (an early fire, which stands for
// the slot as cron's fire of it). Whichever comes first, and whether its run
// succeeded or failed, the other is a duplicate fire: recorded skipped,
// exit 0, and the job runs once; a failing job fails once, not once per host.
func TestEarlyFireOfAFleet(t *testing.T) {
	t.Parallel()
	const onTime, early = "2026-11-21T02:00:00.2Z", "2026-11-21T01:59:58Z"
	tests := map[string]struct {
		first, second string
		exit          int
	}{
		"on time failed, then early":    {first: onTime, second: early, exit: 3},
		"early failed, then on time":    {first: early, second: onTime, exit: 3},
		"on time succeeded, then early": {first: onTime, second: early},
		"early succeeded, then on time": {first: early, second: onTime},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, tc.first)
			slot := mustTime(t, "2026-11-21T02:00:00Z")
			f.job.exitAt(t, slot, tc.exit)
			req := f.request(t)
			req.Schedule = mustSchedule(t, "0 2 * * *", "UTC")
			hostA := f.m
			hostA.Host, hostA.LockDir, hostA.PID = "host-a", t.TempDir(), otherPID
			if res, err := Run(context.Background(), f.st, nil, hostA, req); err != nil || res.ExitCode != tc.exit {
				t.Fatalf("first fire: %+v, %v; want exit %d", res, err, tc.exit)
			}
			f.now = mustTime(t, tc.second)
			hostB := f.m
			hostB.Host, hostB.LockDir, hostB.PID = "host-b", t.TempDir(), otherPID+1
			res, err := Run(context.Background(), f.st, nil, hostB, req)
			if err != nil || res.ExitCode != 0 {
				t.Errorf("second fire: %+v, %v; want exit 0, a duplicate", res, err)
			}
			if runs := f.job.runs(t); len(runs) != 1 {
				t.Errorf("the job ran for %v; want 02:00 once", runs)
			}
			hist := f.history(t)
			last := hist[len(hist)-1]
			if last.Status != store.StatusSkipped || last.Trigger != store.TriggerSchedule || !strings.HasPrefix(last.Error, ReasonDuplicate) {
				t.Errorf("the second fire's record: %+v; want skipped, %q", last, ReasonDuplicate)
			}
		})
	}
}

// TestEarlyTwinClaimsAfterTheFailure: the early twin (another host, 2 s
// behind) looked at the slot before the on-time fire claimed it, and claims
// it once that run has failed: it must still not run.
func TestEarlyTwinClaimsAfterTheFailure(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-11-21T02:00:00.2Z")
	slot := mustTime(t, "2026-11-21T02:00:00Z")
	f.job.exitAt(t, slot, 3)
	req := f.request(t)
	req.Schedule = mustSchedule(t, "0 2 * * *", "UTC")
	other := f.m
	other.LockDir, other.PID = t.TempDir(), otherPID
	onTime := mustTime(t, "2026-11-21T02:00:00.2Z")
	other.Now = func() time.Time { return onTime }
	first := func() {
		if res, err := Run(context.Background(), f.st, nil, other, req); err != nil || res.ExitCode != 3 {
			t.Errorf("first fire: %+v, %v; want exit 3", res, err)
		}
	}
	f.now = mustTime(t, "2026-11-21T01:59:58Z")
	ledger := &afterFirstRead{Store: f.st, act: first}
	res, err := Run(context.Background(), ledger, nil, f.m, req)
	if err != nil || res.ExitCode != 0 {
		t.Errorf("the early twin: %+v, %v; want exit 0, a duplicate", res, err)
	}
	if runs := f.job.runs(t); len(runs) != 1 {
		t.Errorf("the job ran for %v; want 02:00 once", runs)
	}
}
