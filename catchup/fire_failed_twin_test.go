package catchup

import (
	"context"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestTwinFireOfAFailedSlot: a slot's run failed, and a second fire of the
// same slot comes (another host of a fleet, seconds behind; a crontab
// installed twice). When the fire is cron-shaped it is that slot's fire
// again, a duplicate: it must not run a failing job a second time (once
// per host). A later fire by hand, not cron-shaped, still runs the failed
// slot again, as a retry by hand; scan --retry-failed and --force too.
func TestTwinFireOfAFailedSlot(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		twinAt  string // when the second fire comes
		daemon  bool   // the second fire is a daemon's fire of the slot (FireSlot)
		wantRun bool
	}{
		"a twin in the same minute": {twinAt: "2026-03-01T10:00:40Z"},
		"a retry by hand, later":    {twinAt: "2026-03-01T10:03:00Z", wantRun: true},
		// A daemon replica on the same ledger whose fire of the slot was
		// held back (behind its replays, or under --concurrency behind a
		// long job) fires it minutes late: it is still that slot's own
		// fire, not a retry by hand.
		"a daemon replica fire held back, later": {twinAt: "2026-03-01T10:04:00Z", daemon: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:02Z")
			slot := mustTime(t, "2026-03-01T10:00:00Z")
			f.job.exitAt(t, slot, 3)
			if res := f.run(t, f.request(t)); res.ExitCode != 3 {
				t.Fatalf("first fire: exit %d, want 3", res.ExitCode)
			}
			f.now = mustTime(t, tc.twinAt)
			req := f.request(t)
			if tc.daemon {
				req.FireSlot = slot
			}
			res := f.run(t, req)
			runs := f.job.runs(t)
			if ran := len(runs) == 2; ran != tc.wantRun {
				t.Fatalf("second fire: exit %d; the job ran for %v; want it run again: %v", res.ExitCode, runs, tc.wantRun)
			}
			if tc.wantRun {
				return
			}
			if res.ExitCode != 0 {
				t.Errorf("the twin exited %d, want 0 (a duplicate)", res.ExitCode)
			}
			var dup bool
			for _, r := range f.history(t) {
				dup = dup || (r.Status == store.StatusSkipped && r.ExitCode != nil && *r.ExitCode == 0 &&
					strings.HasPrefix(r.Error, ReasonDuplicate))
			}
			if !dup {
				t.Errorf("no duplicate record: %+v", f.history(t))
			}
		})
	}
}

// TestTwinFireClaimsAfterTheFailure: the twin (another host of a fleet, so
// another lock) looked at the slot before the first fire claimed it, and
// claims it once that run has failed: its claim is granted (a failed slot
// is not held), and it must still not run.
func TestTwinFireClaimsAfterTheFailure(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:02Z")
	slot := mustTime(t, "2026-03-01T10:00:00Z")
	f.job.exitAt(t, slot, 3)
	other := f.m // another process with its own lock directory, as another host of a fleet has
	other.LockDir, other.PID = t.TempDir(), otherPID
	first := func() {
		if res, err := Run(context.Background(), f.st, nil, other, f.request(t)); err != nil || res.ExitCode != 3 {
			t.Errorf("first fire: %+v, %v; want exit 3", res, err)
		}
	}
	f.now = mustTime(t, "2026-03-01T10:00:03Z")
	ledger := &afterFirstRead{Store: f.st, act: first}
	res, err := Run(context.Background(), ledger, nil, f.m, f.request(t))
	if err != nil || res.ExitCode != 0 {
		t.Errorf("the twin: %+v, %v; want exit 0, a duplicate", res, err)
	}
	if runs := f.job.runs(t); len(runs) != 1 {
		t.Errorf("the job ran for %v; want 10:00 once", runs)
	}
}
