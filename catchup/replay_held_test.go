package catchup

import (
	"context"
	"testing"

	"github.com/catchup/catchup/store"
)

// ledgerCalls watches a real ledger's claims and outcomes.
type ledgerCalls struct {
	store.Store
	finishes, settled int
}

func (c *ledgerCalls) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if req.Settle != nil {
		c.settled++
	}
	return c.Store.Claim(ctx, req)
}

func (c *ledgerCalls) Finish(ctx context.Context, id int64, o store.Outcome) error {
	c.finishes++
	return c.Store.Finish(ctx, id, o)
}

// TestReplayOutcomeRidesNextClaim: scan records a replay's outcome with the
// claim of the task's next replay (one commit per slot), and the last one
// on its own before scan returns; a replay followed by something outside
// catchup (an alert, a retry) is recorded at once. Either way every slot
// ends with its outcome in the ledger.
func TestReplayOutcomeRidesNextClaim(t *testing.T) {
	for name, c := range map[string]struct {
		notify            string
		retries           int
		finishes, settled int // of the 5 replays
	}{
		"plain replays":     {finishes: 1, settled: 4},
		"with --notify-cmd": {notify: "true", finishes: 5},
		"with --retries":    {retries: 1, finishes: 5},
	} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			req := f.request(t)
			req.NotifyCmd, req.Retries = c.notify, c.retries
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			f.now = mustTime(t, "2026-03-01T15:30:00Z")
			calls := &ledgerCalls{Store: f.st}
			rep, err := Scan(context.Background(), calls, f.m, scanRequest())
			if err != nil {
				t.Fatalf("Scan: %v", err)
			}
			if ts := rep.Tasks[0]; ts.Replayed != 5 {
				t.Fatalf("replayed %d slots, want 5", ts.Replayed)
			}
			if calls.finishes != c.finishes || calls.settled != c.settled {
				t.Errorf("%d outcomes recorded alone and %d with a claim, want %d and %d",
					calls.finishes, calls.settled, c.finishes, c.settled)
			}
			for _, r := range f.history(t) {
				if r.Status != store.StatusSucceeded {
					t.Errorf("run %d (slot %s) is %s after scan, want succeeded", r.ID, r.Slot.Format("15:04"), r.Status)
				}
			}
		})
	}
}
