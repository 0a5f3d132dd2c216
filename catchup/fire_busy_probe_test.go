package catchup

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// releaseOnRead is a real ledger whose first SlotRuns (a scheduled fire's
// check for a duplicate, right after its lock attempt) calls release.
type releaseOnRead struct {
	store.Store
	release func()
	once    sync.Once
}

func (r *releaseOnRead) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]store.Run, error) {
	r.once.Do(r.release)
	return r.Store.SlotRuns(ctx, task, from, to, grace)
}

// TestFireOutlastsALockProbe: catchup's readers (ls, metrics, explain,
// another scan) hold a task's lock for a moment when they check whether a
// running record of it is alive. A cron fire that meets such a probe has
// not met a running task: with --on-busy skip it would settle its slot as
// skipped without running it (a slot lost), with replay it would leave it
// to the next scan (late). It gives the lock a moment first, as a replay
// does, and runs.
func TestFireOutlastsALockProbe(t *testing.T) {
	t.Parallel()
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
			// The probe ends once the fire has found the lock held: at the
			// fire's first ledger read after its lock attempt.
			ledger := &releaseOnRead{Store: f.st, release: probe.close}
			req := f.request(t)
			req.OnBusy = policy
			res, err := Run(context.Background(), ledger, nil, f.m, req)
			if err != nil || res.ExitCode != 0 || !res.Ran {
				t.Errorf("fire during a lock probe: %+v, %v; want it run, exit 0", res, err)
			}
			if got := f.job.runs(t); len(got) != 1 {
				t.Errorf("the job ran for %v, want 10:00 once", got)
			}
		})
	}
}
