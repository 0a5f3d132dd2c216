package postgres

import (
	"context"
	"testing"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestLockTaskWhileItsHolderLetsGo: a taker that finds the task's lock row
// held, and whose holder deletes it (its run ended) before the taker reads
// it, takes the lock: the lock is free. It failed with "no rows in result
// set", a --wait fire on another host then giving up with exit 75 (seen in
// CI: TestFleetWaitWaitsForAnotherHost).
func TestLockTaskWhileItsHolderLetsGo(t *testing.T) {
	ctx := context.Background()
	loc := storetest.PostgresLedger(t)
	a, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	first := storetest.MustClaim(t, a, store.Run{Task: "t", Trigger: store.TriggerManual, StartedAt: storetest.T0, Host: "a"})
	release, ok, err := a.LockTask(ctx, store.TaskLock{Task: "t", RunID: first, Now: storetest.T0})
	if err != nil || !ok {
		t.Fatalf("host a's LockTask = %v, %v", ok, err)
	}
	second := storetest.MustClaim(t, b, store.Run{Task: "t", Trigger: store.TriggerManual, StartedAt: storetest.T0, Host: "b"})
	b.lockRaced = func() { // host a's run ends between b's insert and its read of the holder
		storetest.Finish(t, a, first, store.StatusSucceeded, storetest.T0)
		release()
	}
	releaseB, ok, err := b.LockTask(ctx, store.TaskLock{Task: "t", RunID: second, Now: storetest.T0})
	if err != nil || !ok {
		t.Fatalf("host b's LockTask once host a let go = %v, %v; want the lock taken", ok, err)
	}
	releaseB()
}
