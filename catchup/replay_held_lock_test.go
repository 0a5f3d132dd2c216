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

// TestHeldOutcomeKeepsTheTaskLock: while a replay's outcome waits for the
// next replay's claim, its run is still running in the ledger, so its task
// lock stays held: another scan of this host must not find the lock free,
// take the run for dead and interrupt it (and replay its slot again).
func TestHeldOutcomeKeepsTheTaskLock(t *testing.T) {
	f := newScanFixture(t, "all")
	ledger := &interruptLog{Store: f.st}
	req := scanRequest()
	// Another scan of this host looks for dead runs (findStale) between two
	// replays of this one: after a replay has ended, its outcome held for
	// the next replay's claim.
	var errs []error
	req.Progress = func(p ReplayProgress) {
		if p.Running == 0 && p.Done > 0 {
			if _, err := findStale(context.Background(), ledger, f.m, true); err != nil {
				errs = append(errs, err)
			}
		}
	}
	rep, err := Scan(context.Background(), ledger, f.m, req)
	if err != nil || len(errs) > 0 {
		t.Fatalf("scan: %v; the other scan: %v", err, errs)
	}
	if ts := rep.Tasks[0]; ts.Replayed != 5 {
		t.Fatalf("scan: replayed %d, want 5 (11:00-15:00)", ts.Replayed)
	}
	if len(ledger.interrupted) != 0 {
		t.Errorf("the other scan interrupted runs %v, whose outcomes were held; want none", ledger.interrupted)
	}
}
