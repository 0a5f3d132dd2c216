package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestClaimReadsOlderRunning: a claim that asks (a scheduled fire) learns
// in its transaction whether its task has a running record of an older
// slot (a run that may have died, to replay first); not of a later slot,
// of another task, nor a finished one; a claim that does not ask learns
// nothing.
func TestClaimReadsOlderRunning(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.open(t, be.ledger(t))
		fire := func(task string, slot time.Time) store.Run {
			return store.Run{Task: task, Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot, Host: "h", PID: 1}
		}
		ask := func(task string, slot time.Time) store.ClaimResult {
			return storetest.Claim(t, s, store.ClaimRequest{Run: fire(task, slot), AskOlderRunning: true})
		}
		if got := ask("t", t0); !got.Claimed || got.OlderRunning {
			t.Fatalf("first claim: %+v; want granted, no older running", got)
		}
		for _, c := range []struct {
			name string
			res  store.ClaimResult
			want bool
		}{
			{"a later slot, asked", ask("t", t0.Add(time.Hour)), true},
			{"a later slot, not asked", storetest.Claim(t, s, store.ClaimRequest{Run: fire("t", t0.Add(2*time.Hour))}), false},
			{"another task", ask("u", t0.Add(time.Hour)), false},
		} {
			if !c.res.Claimed || c.res.OlderRunning != c.want {
				t.Errorf("%s: %+v; want granted, OlderRunning %v", c.name, c.res, c.want)
			}
		}
		// Every running record of t finished: none is older any more.
		running, err := s.Running(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range running {
			if err := s.Finish(t.Context(), r.ID, store.Outcome{Status: store.StatusSucceeded, ExitCode: new(int), EndedAt: r.StartedAt.Add(time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
		if got := ask("t", t0.Add(3*time.Hour)); !got.Claimed || got.OlderRunning {
			t.Errorf("claim after every run finished: %+v; want granted, no older running", got)
		}
		// A running record of a later slot is no older one.
		if got := ask("t", t0.Add(-time.Hour)); !got.Claimed || got.OlderRunning {
			t.Errorf("claim of an earlier slot: %+v; want granted, no older running", got)
		}
	})
}
