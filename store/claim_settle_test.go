package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestClaimSettles: a claim carrying an earlier run's outcome records it in
// its own transaction, whether the claim is granted or refused (the slot is
// held). Scan's replays of a task commit once per slot this way.
func TestClaimSettles(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		replay := func(slot time.Time) store.Run {
			return store.Run{Task: "t", Slot: slot, Trigger: store.TriggerReplay, StartedAt: slot, Host: "h", PID: 1}
		}
		s := be.open(t, be.ledger(t))
		code := 0
		done := func(id int64, status string, at time.Time) *store.Settlement {
			return &store.Settlement{ID: id, Outcome: store.Outcome{Status: status, ExitCode: &code, EndedAt: at,
				StdoutTail: []byte("out"), Error: ""}}
		}
		first := storetest.MustClaim(t, s, replay(t0))

		// Granted: the earlier outcome and the new claim land together.
		next := storetest.Claim(t, s, store.ClaimRequest{Run: replay(t0.Add(time.Minute)), Settle: done(first, store.StatusSucceeded, t0.Add(time.Second))})
		if !next.Claimed {
			t.Fatalf("claim with a settlement not granted: %+v", next)
		}
		if r := storetest.GetRun(t, s, first); r.Status != store.StatusSucceeded || string(r.StdoutTail) != "out" ||
			!r.EndedAt.Equal(t0.Add(time.Second)) {
			t.Errorf("settled run = %s ended %v out %q, want succeeded ended %v out \"out\"", r.Status, r.EndedAt, r.StdoutTail, t0.Add(time.Second))
		}
		// The settled slot is done: claiming it again is refused.
		if again := storetest.Claim(t, s, store.ClaimRequest{Run: replay(t0)}); again.Claimed || again.Run.ID != first {
			t.Errorf("settled slot claimed again: %+v", again)
		}

		// Refused (the slot is running): the outcome is recorded all the same.
		other := storetest.MustClaim(t, s, replay(t0.Add(2*time.Minute)))
		refused := storetest.Claim(t, s, store.ClaimRequest{Run: replay(t0.Add(2 * time.Minute)), Settle: done(next.Run.ID, store.StatusFailed, t0.Add(time.Minute+time.Second))})
		if refused.Claimed || refused.Run.ID != other {
			t.Fatalf("claim of a running slot = %+v, want refused, held by run %d", refused, other)
		}
		if r := storetest.GetRun(t, s, next.Run.ID); r.Status != store.StatusFailed {
			t.Errorf("run settled by a refused claim = %s, want failed", r.Status)
		}
	})
}
