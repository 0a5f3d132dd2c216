package catchup

import (
	"context"
	"testing"
	"time"
)

// TestTwinOfANotedFailureRunsNothing: the 10:00 run failed, and its
// outcome could not be recorded (the disk filled while it ran): it is
// noted on the host. While the disk is still full, a twin of its fire in
// the same minute reads the note: a cron-shaped fire of a slot whose run
// failed is a duplicate (R13), as with the ledger's record of that
// failure, and runs nothing, exit 0 (before, it ran the failing job a
// second time). --force and a run --slot by hand still run it, as their
// claims would be granted.
func TestTwinOfANotedFailureRunsNothing(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		at      string
		force   bool
		slot    bool
		wantRun bool
	}{
		"twin in the minute": {at: "2026-03-01T10:00:40Z"},
		"--force":            {at: "2026-03-01T10:00:40Z", force: true, wantRun: true},
		"--slot by hand":     {at: "2026-03-01T10:20:00Z", slot: true, wantRun: true},
	} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			if res := f.run(t, f.request(t)); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			slot := mustTime(t, "2026-03-01T10:00:00Z")
			f.job.exitAt(t, slot, 3)
			f.now = mustTime(t, "2026-03-01T10:00:30Z")
			f.fireWithAFullDisk(t)
			f.now = mustTime(t, c.at)
			req := f.request(t)
			req.Force = c.force
			if c.slot {
				req.Slot = slot
			}
			m := f.m
			m.Now = func() time.Time { return f.now }
			res, err := Run(context.Background(), failingFinish{f.st}, nil, m, req)
			if err != nil {
				t.Fatalf("second fire: %v", err)
			}
			runs := f.job.runs(t)
			if ran := len(runs) == 3; ran != c.wantRun || res.Ran != c.wantRun {
				t.Fatalf("second fire of 10:00: ran %v, exit %d, the job ran for %v; want it run again: %v",
					res.Ran, res.ExitCode, runs, c.wantRun)
			}
			if !c.wantRun && res.ExitCode != 0 {
				t.Errorf("the twin exited %d, want 0 (a duplicate)", res.ExitCode)
			}
		})
	}
}
