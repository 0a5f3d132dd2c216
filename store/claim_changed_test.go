package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestReplayClaimRefusesATaskRegisteredAgain: a scan's replay's claim
// given the task's UpdatedAt as read (ClaimRequest.Updated) is granted
// while the task's row is as read, and refused as Changed, nothing
// written, once a fire registered it again since (its command may
// differ); the UpdatedAt read again is granted.
func TestReplayClaimRefusesATaskRegisteredAgain(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.open(t, be.ledger(t))
		ctx := t.Context()
		reg := store.Task{Name: "t", Schedule: "0 * * * *", Argv: []string{"old"}, RegisteredAt: t0, UpdatedAt: t0.Add(time.Second)}
		if err := s.UpsertTask(ctx, reg); err != nil {
			t.Fatal(err)
		}
		read, err := s.Task(ctx, "t")
		if err != nil {
			t.Fatal(err)
		}
		replay := func(slot time.Time, updated time.Time) store.ClaimResult {
			run := store.Run{Task: "t", Slot: slot, Trigger: store.TriggerReplay, StartedAt: t0.Add(5 * time.Hour), Host: "h", PID: 1}
			return storetest.Claim(t, s, store.ClaimRequest{Run: run, Replay: true, RefusePaused: true,
				Registered: read.RegisteredAt, Updated: updated})
		}
		if got := replay(t0.Add(time.Hour), read.UpdatedAt); !got.Claimed || got.Changed {
			t.Fatalf("claim of the task as read: %+v; want granted", got)
		}
		reg.Argv, reg.UpdatedAt = []string{"new"}, t0.Add(5*time.Hour+123*time.Millisecond)
		if err := s.UpsertTask(ctx, reg); err != nil {
			t.Fatal(err)
		}
		if got := replay(t0.Add(2*time.Hour), read.UpdatedAt); got.Claimed || !got.Changed || got.Run.ID != 0 {
			t.Fatalf("claim of the task registered again since read: %+v; want refused, changed", got)
		}
		if runs, err := s.History(ctx, store.HistoryFilter{Task: "t", Limit: 10}); err != nil || len(runs) != 1 {
			t.Fatalf("the refused claim wrote a run: %d runs, %v", len(runs), err)
		}
		again, err := s.Task(ctx, "t")
		if err != nil {
			t.Fatal(err)
		}
		if got := replay(t0.Add(2*time.Hour), again.UpdatedAt); !got.Claimed || got.Changed {
			t.Errorf("claim of the task read again: %+v; want granted", got)
		}
	})
}
