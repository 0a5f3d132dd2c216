package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestStalledHostLetsGoOfItsLocks: a host that stops between two
// statements of a transaction (frozen, partitioned) holds the task's row
// locks only until the server ends its session (idle in transaction for
// longer than idleInTransaction): the fleet's next write of the task goes
// through. Without it, every other host's claim of the task, and a scan,
// waited as long as the stalled host did: hours, until TCP gave up.
func TestStalledHostLetsGoOfItsLocks(t *testing.T) {
	defer func(d time.Duration) { idleInTransaction = d }(idleInTransaction)
	idleInTransaction = time.Second
	dsn := storetest.PostgresLedger(t)
	ctx := context.Background()
	stalled, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	other, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.UpsertTask(ctx, store.Task{Name: "t", Schedule: "0 * * * *", TZ: "UTC", Replay: "all",
		Argv: []string{"true"}, RegisteredAt: storetest.T0, UpdatedAt: storetest.T0}); err != nil {
		t.Fatal(err)
	}

	tx, err := stalled.begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, lockTaskSQL, "t"); err != nil {
		t.Fatal(err)
	}
	// The stalled host sends nothing more. The other host's write of the
	// task waits for the row, until the server ends the stalled session.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := other.SetSettled(wctx, "t", storetest.T0.Add(time.Hour)); err != nil {
		t.Fatalf("the other host's write of the task: %v; want it through once the stalled session is ended", err)
	}
	if err := tx.Commit(ctx); err == nil {
		t.Error("the stalled host's transaction committed; want it ended by the server")
	}
}
