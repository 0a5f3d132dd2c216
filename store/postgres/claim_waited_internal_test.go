package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestClaimThatWaitedIsBornAlive: a claim that waited for the task's row
// (another session held it: a psql left in a transaction, a stalled host)
// records its run's first heartbeat as of when it was made, not as of when
// it was asked for. Before, a wait longer than the lease made a run that
// was dead at birth: in a fleet run (two hosts' fires of one slot, both
// held up by a row lock), the second host's claim, made a moment after the
// first's, took the first's run for dead, and both ran the slot at once.
func TestClaimThatWaitedIsBornAlive(t *testing.T) {
	ctx := context.Background()
	l, tx := taskRowHeldElsewhere(t)
	const hold = 2 * time.Second // the other session's hold of the row: the fault
	released := make(chan struct{})
	time.AfterFunc(hold, func() { tx.Rollback(context.Background()); close(released) })
	// The other session's connection is closed (cleanup) only after its
	// rollback: a connection is not for two goroutines at once.
	defer func() { <-released }()

	asked := storetest.T0.Add(time.Hour) // the fire's clock as it asks (CATCHUP_NOW)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	claim, err := l.Claim(cctx, store.ClaimRequest{Run: store.Run{Task: "t", Slot: asked, Trigger: store.TriggerSchedule,
		StartedAt: asked, Host: "a"}, Registered: storetest.T0})
	if err != nil || !claim.Claimed {
		t.Fatalf("claim = %+v, %v; want it claimed once the row is free", claim, err)
	}
	runs, err := l.History(ctx, store.HistoryFilter{Task: "t", Limit: 10})
	if err != nil || len(runs) != 1 {
		t.Fatalf("history = %+v, %v", runs, err)
	}
	if waited := runs[0].Heartbeat.Sub(asked); waited < hold/2 {
		t.Errorf("the run's first heartbeat is %s after the claim was asked for; want it as of the claim, after its wait of about %s",
			waited, hold)
	}
}
