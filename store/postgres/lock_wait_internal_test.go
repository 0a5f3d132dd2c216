package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
	"github.com/jackc/pgx/v5"
)

// TestForeignLockBoundsAClaimsWait: a session that is no catchup (an
// operator's psql left in a transaction) holding the task's row makes a
// claim of the task, and a registration (a duplicate fire's), wait at most
// lockWait: each fails, naming the lock timeout, instead of waiting, on a
// connection, as long as that session lives. Before, every host's fire of
// the task waited without a word. The error is marked store.ErrLedgerLocked,
// not store.ErrLedgerUnreachable: the ledger answered (before, its fire's
// slot read ledger-unreachable).
func TestForeignLockBoundsAClaimsWait(t *testing.T) {
	defer func(d time.Duration) { lockWait = d }(lockWait)
	lockWait = time.Second
	ctx := context.Background()
	l, tx := taskRowHeldElsewhere(t)
	defer tx.Rollback(context.Background())

	slot := storetest.T0.Add(time.Hour)
	for name, write := range map[string]func(context.Context) error{
		"claim": func(ctx context.Context) error {
			_, err := l.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "t", Slot: slot, Trigger: store.TriggerSchedule,
				Status: store.StatusRunning, StartedAt: slot, Host: "a"}, Registered: storetest.T0})
			return err
		},
		"registration": func(ctx context.Context) error {
			return l.UpsertTask(ctx, store.Task{Name: "t", Schedule: "30 * * * *", TZ: "UTC", Replay: "all",
				Argv: []string{"true"}, RegisteredAt: storetest.T0, UpdatedAt: slot})
		},
	} {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		start := time.Now()
		err := write(cctx)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "55P03") {
			t.Errorf("%s while another session holds the task's row = %v after %s; want the lock timeout (55P03) after about %s",
				name, err, time.Since(start).Round(time.Millisecond), lockWait)
		}
		// The ledger answered: its fire's slot is ledger-locked, not
		// ledger-unreachable (catchup's cause of the slot).
		if !errors.Is(err, store.ErrLedgerLocked) || errors.Is(err, store.ErrLedgerUnreachable) {
			t.Errorf("%s while another session holds the task's row = %v; want it marked ErrLedgerLocked, not ErrLedgerUnreachable", name, err)
		}
	}
}

// taskRowHeldElsewhere opens a ledger holding task t, and holds t's row in
// a transaction of another session, as an operator's psql left open would:
// the transaction is the caller's to end.
func taskRowHeldElsewhere(t *testing.T) (*Ledger, pgx.Tx) {
	t.Helper()
	dsn := storetest.PostgresLedger(t)
	ctx := context.Background()
	l, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.UpsertTask(ctx, store.Task{Name: "t", Schedule: "0 * * * *", TZ: "UTC", Replay: "all",
		Argv: []string{"true"}, RegisteredAt: storetest.T0, UpdatedAt: storetest.T0}); err != nil {
		t.Fatal(err)
	}
	psql, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { psql.Close(context.Background()) })
	tx, err := psql.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM tasks WHERE name = 't' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	return l, tx
}
