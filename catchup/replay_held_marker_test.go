package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// interruptLog is a real ledger that notes the runs it marks interrupted.
type interruptLog struct {
	store.Store
	interrupted []int64
}

func (c *interruptLog) Interrupt(ctx context.Context, id int64, at time.Time, reason string) (bool, error) {
	changed, err := c.Store.Interrupt(ctx, id, at, reason)
	if changed {
		c.interrupted = append(c.interrupted, id)
	}
	return changed, err
}

// TestHeldOutcomeIsNotTakenForDead: between two of scan's replays of a
// task, the task's lock is free while the last replay's outcome waits for
// the next claim, its run still `running` in the ledger. Another scan on
// the host, looking for dead runs and replaying the same slot in that
// moment, must take that run for alive: interrupt nothing, run nothing
// twice. (TestLoadScanDuringCronFires, two scans and cron fires at once,
// ran a slot twice now and then before.)
func TestHeldOutcomeIsNotTakenForDead(t *testing.T) {
	t.Parallel()
	f := newScanFixture(t, "all")
	ledger := &interruptLog{Store: f.st}
	req := scanRequest()
	var errs []error
	var secondRuns int
	req.Progress = func(p ReplayProgress) {
		if p.Running != 0 || p.Done == 0 {
			return // not between two replays
		}
		if _, err := findStale(context.Background(), ledger, f.m, true); err != nil {
			errs = append(errs, err)
		}
		other := f.request(t)
		other.Schedule, other.TZ, other.ReplaySlot = nil, "", p.Slot
		res, err := Run(context.Background(), ledger, nil, f.m, other)
		if err != nil {
			errs = append(errs, err)
		}
		if res.Ran {
			secondRuns++
		}
	}
	rep, err := Scan(context.Background(), ledger, f.m, req)
	if err != nil || len(errs) > 0 {
		t.Fatalf("scan: %v; the other scan: %v", err, errs)
	}
	if ts := rep.Tasks[0]; ts.Replayed != 5 {
		t.Fatalf("scan: replayed %d, want 5 (11:00-15:00)", ts.Replayed)
	}
	if len(ledger.interrupted) != 0 || secondRuns != 0 {
		t.Errorf("the other scan interrupted runs %v and ran %d slots again; want none", ledger.interrupted, secondRuns)
	}
	if got := f.job.runs(t); len(got) != 6 {
		t.Errorf("the job ran %d times, want 6 (10:00-15:00, each once): %v", len(got), got)
	}
}
