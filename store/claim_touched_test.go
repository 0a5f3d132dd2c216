package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestClaimTouched: a granted claim says whether its slot had runs before
// (a twin fire then looks at them) or is new (the normal path reads nothing
// more).
func TestClaimTouched(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.open(t, be.ledger(t))
		fire := func(slot time.Time) store.Run {
			return store.Run{Task: "t", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot, Host: "h", PID: 1}
		}
		first := storetest.Claim(t, s, store.ClaimRequest{Run: fire(t0)})
		if !first.Claimed || first.Touched {
			t.Fatalf("first claim of a slot: %+v; want granted, not touched", first)
		}
		code := 3
		if err := s.Finish(t.Context(), first.Run.ID, store.Outcome{Status: store.StatusFailed, ExitCode: &code, EndedAt: t0.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
		again := storetest.Claim(t, s, store.ClaimRequest{Run: fire(t0)})
		if !again.Claimed || !again.Touched {
			t.Errorf("claim of a slot whose run failed: %+v; want granted, touched", again)
		}
		other := storetest.Claim(t, s, store.ClaimRequest{Run: fire(t0.Add(time.Hour))})
		if !other.Claimed || other.Touched {
			t.Errorf("claim of another new slot: %+v; want granted, not touched", other)
		}
	})
}
