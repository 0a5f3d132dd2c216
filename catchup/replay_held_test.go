package catchup

import (
	"context"
	"testing"

	"github.com/catchup/catchup/store"
)

// ledgerCalls watches a real ledger's claims and outcomes.
type ledgerCalls struct {
	store.Store
	finishes, settled, claims int
	stopAt                    int    // stop (cancel) at this claim; 0: never
	stop                      func() // cancels scan's context
}

func (c *ledgerCalls) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if req.Settle != nil {
		c.settled++
	}
	if c.claims++; c.claims == c.stopAt {
		c.stop() // as a SIGTERM would, while this claim is under way
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
// ends with its outcome in the ledger, a scan told to stop too. (Told to
// stop during its claim, the third replay does not start its job: it is
// recorded interrupted, having run nothing.)
func TestReplayOutcomeRidesNextClaim(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		notify                string
		retries               int
		stopAt                int // claim at which scan is told to stop
		replayed, interrupted int
		finishes, settled     int
	}{
		"plain replays":                       {replayed: 5, finishes: 1, settled: 4},
		"with --notify-cmd":                   {notify: "true", replayed: 5, finishes: 5},
		"with --retries":                      {retries: 1, replayed: 5, finishes: 5},
		"stopped at the third replay's claim": {stopAt: 3, replayed: 2, interrupted: 1, finishes: 1, settled: 2},
	} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			req := f.request(t)
			req.NotifyCmd, req.Retries = c.notify, c.retries
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			f.now = mustTime(t, "2026-03-01T15:30:00Z")
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			calls := &ledgerCalls{Store: f.st, stopAt: c.stopAt, stop: stop}
			rep, err := Scan(ctx, calls, f.m, scanRequest())
			if err != nil {
				t.Fatalf("Scan: %v", err)
			}
			if ts := rep.Tasks[0]; ts.Replayed != c.replayed || ts.Interrupted != c.interrupted {
				t.Fatalf("replayed %d slots and %d interrupted, want %d and %d", ts.Replayed, ts.Interrupted, c.replayed, c.interrupted)
			}
			if calls.finishes != c.finishes || calls.settled != c.settled {
				t.Errorf("%d outcomes recorded alone and %d with a claim, want %d and %d",
					calls.finishes, calls.settled, c.finishes, c.settled)
			}
			for _, r := range f.history(t) {
				if r.Status == store.StatusRunning {
					t.Errorf("run %d (slot %s) is still running after scan: its outcome was lost", r.ID, r.Slot.Format("15:04"))
				}
			}
		})
	}
}
