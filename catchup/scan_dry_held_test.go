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
// warning): the dry run must say so too, not that it would replay them.
func TestScanDryRunLeavesSlotsAfterAHeldSlot(t *testing.T) {
	t.Parallel()
	held := mustTime(t, "2026-03-01T11:00:00Z")
	for backend, open := range sharedLedgers {
		t.Run(backend, func(t *testing.T) {
			st, db := open(t)
			m, _, now := hourlyThreeMissed(t, st, db)
			b, err := st.Claim(context.Background(), store.ClaimRequest{Run: store.Run{Task: "job", Slot: held,
				Trigger: store.TriggerReplay, Status: store.StatusRunning, Attempt: 1, StartedAt: now, Host: "b"}})
			if err != nil || !b.Claimed {
				t.Fatalf("host b's claim of 11:00: %+v, %v", b, err)
			}
			ledger := &lostClaim{Store: st}
			req := scanRequest()
			req.DryRun = true
			dry, err := Scan(context.Background(), ledger, m, req)
			if err != nil {
				t.Fatalf("dry run: %v", err)
			}
			actual, err := Scan(context.Background(), ledger, m, scanRequest())
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			d, r := dry.Tasks[0], actual.Tasks[0]
			planned := 0
			for _, a := range d.Actions {
				if a.Action == ActionPlanned {
					planned++
				}
			}
			if r.Replayed != 0 || r.Left != 2 {
				t.Fatalf("the real scan replayed %d, left %d; want 0 replayed, 2 left", r.Replayed, r.Left)
			}
			if planned != r.Replayed || d.Left != r.Left {
				t.Errorf("dry run: would replay %d, left %d; the real scan replayed %d, left %d", planned, d.Left, r.Replayed, r.Left)
			}
			if warn := strings.Join(d.Warnings, "\n"); !strings.Contains(warn, "task job: slot 2026-03-01T11:00:00Z is held by run ") {
				t.Errorf("dry run warned %q, want the held slot named", warn)
			}
		})
	}
}
