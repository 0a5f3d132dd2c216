package store_test

import (
	"cmp"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestAddRunsLeavesAHeldSlot: AddRuns leaves out an expired record of a
// slot that a run holds, running or succeeded (id 0), as it leaves out one
// of a slot recorded expired already: a run claimed it after the caller
// read the slot missed (a scan's replay while forget or a schedule change
// computed what to expire), and the slot must not hold both. A slot whose
// run failed or was interrupted is recorded (a dead run of an old schedule
// is expired on purpose).
func TestAddRunsLeavesAHeldSlot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.open(t, be.ledger(t))
		ctx := t.Context()
		code := 1
		tests := map[string]struct {
			outcome string // "" leaves the run running
			added   bool
		}{
			"running":     {added: false},
			"succeeded":   {outcome: store.StatusSucceeded, added: false},
			"failed":      {outcome: store.StatusFailed, added: true},
			"interrupted": {outcome: store.StatusInterrupted, added: true},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				run := store.Run{Task: name, Slot: t0, Trigger: store.TriggerReplay, StartedAt: t0.Add(time.Minute), Host: "h", PID: 1}
				claim := storetest.Claim(t, s, store.ClaimRequest{Run: run})
				if tc.outcome != "" {
					o := store.Outcome{Status: tc.outcome, EndedAt: t0.Add(2 * time.Minute)}
					if tc.outcome == store.StatusFailed {
						o.ExitCode = &code
					}
					if err := s.Finish(ctx, claim.Run.ID, o); err != nil {
						t.Fatal(err)
					}
				}
				ids, err := s.AddRuns(ctx, []store.Run{{Task: name, Slot: t0, Trigger: store.TriggerReplay, Status: store.StatusExpired,
					StartedAt: t0.Add(time.Hour), EndedAt: t0.Add(time.Hour), Reason: store.ReasonRetired}})
				if err != nil || len(ids) != 1 {
					t.Fatalf("AddRuns = %v, %v", ids, err)
				}
				if added := ids[0] != 0; added != tc.added {
					t.Errorf("expired record of a slot whose run is %s added: %v, want %v", cmp.Or(tc.outcome, "running"), added, tc.added)
				}
			})
		}
	})
}
