package catchup

import (
	"context"
	"testing"
	"time"
)

// TestFireOutlastsALockProbe: catchup's readers (ls, metrics, explain,
// another scan) hold a task's lock for a moment when they check whether a
// running record of it is alive. A cron fire that meets such a probe has
// not met a running task: with --on-busy skip it would settle its slot as
// skipped without running it (a slot lost), with replay it would leave it
// to the next scan (late). It gives the lock a moment first, as a replay
// does, and runs.
func TestFireOutlastsALockProbe(t *testing.T) {
	for _, policy := range []string{"skip", "replay"} {
		t.Run(policy, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			probe, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := probe.tryLock(); err != nil || !ok {
				t.Fatalf("probe: %v, %v", ok, err)
			}
			released := make(chan struct{})
			go func() {
				time.Sleep(50 * time.Millisecond) // a probe's moment, stretched
				probe.close()
				close(released)
			}()
			req := f.request(t)
			req.OnBusy = policy
			res, err := Run(context.Background(), f.st, nil, f.m, req)
			<-released
			if err != nil || res.ExitCode != 0 || !res.Ran {
				t.Errorf("fire during a lock probe: %+v, %v; want it run, exit 0", res, err)
			}
			if got := f.job.runs(t); len(got) != 1 {
				t.Errorf("the job ran for %v, want 10:00 once", got)
			}
		})
	}
}
