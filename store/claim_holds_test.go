package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestClaimRefusesWhatHoldsSlot: the claim of a slot is refused exactly
// when one of its records holds it by store.HoldsSlot, the rule the readers
// decide by, whatever the order of its records (two hosts' records of one
// slot, migrated or written on a shared ledger), forced or not.
func TestClaimRefusesWhatHoldsSlot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		slot := t0
		tests := map[string][]string{ // the slot's records, by id
			"succeeded then failed":           {store.StatusSucceeded, store.StatusFailed},
			"succeeded then timed out":        {store.StatusSucceeded, store.StatusTimeout},
			"failed then succeeded":           {store.StatusFailed, store.StatusSucceeded},
			"succeeded then interrupted":      {store.StatusSucceeded, store.StatusInterrupted},
			"failed then failed":              {store.StatusFailed, store.StatusFailed},
			"expired then failed":             {store.StatusExpired, store.StatusFailed},
			"skipped then failed":             {store.StatusSkipped, store.StatusFailed},
			"paused then failed":              {store.StatusPaused, store.StatusFailed},
			"running then failed":             {store.StatusRunning, store.StatusFailed},
			"succeeded, expired then failed":  {store.StatusSucceeded, store.StatusExpired, store.StatusFailed},
			"interrupted then timed out":      {store.StatusInterrupted, store.StatusTimeout},
			"failed, succeeded, then skipped": {store.StatusFailed, store.StatusSucceeded, store.StatusSkipped},
		}
		for name, statuses := range tests {
			for _, force := range []bool{false, true} {
				t.Run(name+map[bool]string{true: ", forced"}[force], func(t *testing.T) {
					s := be.fresh(t)
					held := false
					for i, status := range statuses {
						r := store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerSchedule, Status: status, Attempt: 1,
							StartedAt: slot.Add(time.Duration(i+1) * time.Second), Host: []string{"a", "b", "c"}[i]}
						if status != store.StatusRunning {
							r.EndedAt = r.StartedAt.Add(time.Second)
						}
						if _, err := s.AddRun(t.Context(), r); err != nil {
							t.Fatal(err)
						}
						held = held || store.HoldsSlot(r, force)
					}
					res := claim(t, s, store.ClaimRequest{Force: force, Run: store.Run{Task: "backup", Slot: slot,
						Trigger: store.TriggerReplay, StartedAt: slot.Add(time.Hour), Host: "d"}})
					if res.Claimed == held {
						t.Errorf("Claimed = %v, but HoldsSlot says the slot is held = %v (holder %+v)", res.Claimed, held, res.Run)
					}
					if !res.Claimed && !store.HoldsSlot(res.Run, force) {
						t.Errorf("the claim's holder %+v does not hold the slot by HoldsSlot", res.Run)
					}
				})
			}
		}
	})
}
