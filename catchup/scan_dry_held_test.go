package catchup

import (
	"context"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestScanDryRunLeavesSlotsAfterAHeldSlot: a dry run says what the real
// scan would do. A slot held by a run still running when scan reads the
// task holds its later missed slots back for the next scan (left, with a
// warning): the dry run must say so too, not that it would replay them,
// nor, under coalesce, that it would skip the slots folded into a replay
// that is left.
func TestScanDryRunLeavesSlotsAfterAHeldSlot(t *testing.T) {
	t.Parallel()
	held := mustTime(t, "2026-03-01T11:00:00Z")
	tests := map[string]struct {
		policy   string
		wantWarn string // the count the warning gives
	}{
		"all":      {policy: "all", wantWarn: "its later missed slots (2) wait"},
		"coalesce": {policy: "coalesce", wantWarn: "its later missed slots (2) wait"},
	}
	for backend, open := range sharedLedgers {
		for name, tc := range tests {
			t.Run(backend+"/"+name, func(t *testing.T) {
				st, db := open(t)
				m, _, now := hourlyThreeMissed(t, st, db)
				b, err := st.Claim(context.Background(), store.ClaimRequest{Run: store.Run{Task: "job", Slot: held,
					Trigger: store.TriggerReplay, Status: store.StatusRunning, Attempt: 1, StartedAt: now, Host: "b"}})
				if err != nil || !b.Claimed {
					t.Fatalf("host b's claim of 11:00: %+v, %v", b, err)
				}
				ledger := &lostClaim{Store: st}
				req := scanRequest()
				req.Replay, req.DryRun = tc.policy, true
				dry, err := Scan(context.Background(), ledger, m, req)
				if err != nil {
					t.Fatalf("dry run: %v", err)
				}
				req.DryRun = false
				actual, err := Scan(context.Background(), ledger, m, req)
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				d, r := dry.Tasks[0], actual.Tasks[0]
				if r.Replayed != 0 || r.Skipped != 0 || r.Left != 2 {
					t.Fatalf("the real scan replayed %d, skipped %d, left %d; want 0, 0, 2", r.Replayed, r.Skipped, r.Left)
				}
				dryAgrees(t, d, r)
				for _, w := range [][]string{d.Warnings, r.Warnings} {
					warn := strings.Join(w, "\n")
					if !strings.Contains(warn, "task job: slot 2026-03-01T11:00:00Z is held by run ") || !strings.Contains(warn, tc.wantWarn) {
						t.Errorf("warned %q, want the held slot named and %q", warn, tc.wantWarn)
					}
				}
			})
		}
	}
}

// dryAgrees checks that dry run d said what real scan r then did: as many
// slots would replay as it replayed, as many skipped and as many left.
func dryAgrees(t *testing.T, d, r TaskScan) {
	t.Helper()
	planned := 0
	for _, a := range d.Actions {
		if a.Action == ActionPlanned {
			planned++
		}
	}
	if planned != r.Replayed || d.Skipped != r.Skipped || d.Left != r.Left {
		t.Errorf("dry run: would replay %d, skip %d, leave %d; the real scan replayed %d, skipped %d, left %d",
			planned, d.Skipped, d.Left, r.Replayed, r.Skipped, r.Left)
	}
}
