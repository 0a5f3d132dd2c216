package sqlite_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// holdLock takes the ledger's write lock at path on a connection of its
// own, as another process would, until the returned release is called.
func holdLock(t *testing.T, path string) (release func()) {
	t.Helper()
	conn, err := rawDB(t, path).Conn(context.Background())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatalf("take the write lock: %v", err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			if _, err := conn.ExecContext(context.Background(), `COMMIT`); err != nil {
				t.Errorf("release the write lock: %v", err)
			}
			conn.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// ledgerWrites are writes a stopping daemon makes: registering a task
// (start, reload), advancing a watermark (scan), claiming a slot and
// recording an outcome (a fire). Each writes task "w".
var ledgerWrites = map[string]func(ctx context.Context, s *sqlite.Ledger) error{
	"UpsertTask": func(ctx context.Context, s *sqlite.Ledger) error {
		return s.UpsertTask(ctx, store.Task{Name: "w", Schedule: "0 * * * *", Source: "crontab:c:1", RegisteredAt: t0})
	},
	"SetSettled": func(ctx context.Context, s *sqlite.Ledger) error { return s.SetSettled(ctx, "w", t0.Add(time.Hour)) },
	"Claim": func(ctx context.Context, s *sqlite.Ledger) error {
		_, err := s.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "w", Slot: t0.Add(time.Hour), StartedAt: t0}})
		return err
	},
	"Finish": func(ctx context.Context, s *sqlite.Ledger) error {
		return s.Finish(ctx, 1, store.Outcome{Status: store.StatusInterrupted, EndedAt: t0.Add(time.Minute)})
	},
}

// TestGiveUpWaitingForALockedLedger: a write marked by GiveUpWaitsWhen that
// waits for a lock another connection holds gives up soon after its
// giveUp is done (not at the 30s busy timeout), with an error wrapping
// store.ErrGaveUp, and writes nothing.
func TestGiveUpWaitingForALockedLedger(t *testing.T) {
	for name, write := range ledgerWrites {
		t.Run(name, func(t *testing.T) {
			s, path := newWLedger(t)
			before := ledgerState(t, s)
			release := holdLock(t, path)
			giveUp, stop := context.WithCancel(context.Background())
			ctx := store.GiveUpWaitsWhen(context.Background(), giveUp)
			done := make(chan error, 1)
			go func() { done <- write(ctx, s) }()
			stop()
			deadline := store.LastChance + 5*time.Second // far below the 30s busy timeout
			select {
			case err := <-done:
				if !errors.Is(err, store.ErrGaveUp) {
					t.Fatalf("%s waiting for a locked ledger after its giveUp = %v, want an error wrapping ErrGaveUp", name, err)
				}
			case <-time.After(deadline):
				release()
				t.Fatalf("%s still waited for the locked ledger %s after its giveUp was done", name, deadline)
			}
			release()
			if after := ledgerState(t, s); after != before {
				t.Errorf("%s gave up but wrote: ledger %q, was %q", name, after, before)
			}
		})
	}
}

// TestGiveUpWritesAFreeLedger: a write whose giveUp is done already still
// writes a ledger it finds free (a stop loses nothing it can record), and
// one without the mark waits for a locked ledger whatever its context.
func TestGiveUpWritesAFreeLedger(t *testing.T) {
	for name, write := range ledgerWrites {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each on its own ledgers; most of the time is the wait below
			s, _ := newWLedger(t)
			before := ledgerState(t, s)
			given, stop := context.WithCancel(context.Background())
			stop()
			if err := write(store.GiveUpWaitsWhen(given, given), s); err != nil {
				t.Fatalf("%s on a free ledger after its giveUp: %v", name, err)
			}
			if ledgerState(t, s) == before {
				t.Errorf("%s on a free ledger after its giveUp wrote nothing", name)
			}

			s2, path2 := newWLedger(t)
			release := holdLock(t, path2)
			done := make(chan error, 1)
			go func() { done <- write(given, s2) }() // cancelled, unmarked
			select {
			case err := <-done:
				t.Fatalf("%s without the mark returned while the ledger was locked: %v", name, err)
			case <-time.After(2 * store.LastChance):
			}
			release()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s without the mark, once the lock was released: %v", name, err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%s without the mark did not end within 20s of the lock's release", name)
			}
		})
	}
}

// newWLedger is a new ledger with task w and its run 1, running (with
// no slot: it holds no watermark back).
func newWLedger(t *testing.T) (*sqlite.Ledger, string) {
	t.Helper()
	s, path := newLedger(t)
	if _, err := s.Claim(context.Background(), store.ClaimRequest{Run: store.Run{Task: "w", StartedAt: t0}}); err != nil {
		t.Fatalf("claim run 1: %v", err)
	}
	return s, path
}

// ledgerState is what the writes above change: task w's watermark and
// registration, and its runs' statuses.
func ledgerState(t *testing.T, s *sqlite.Ledger) string {
	t.Helper()
	ctx := context.Background()
	task, err := s.Task(ctx, "w")
	if err != nil {
		t.Fatalf("read task w: %v", err)
	}
	runs, err := s.History(ctx, store.HistoryFilter{Task: "w"})
	if err != nil {
		t.Fatalf("read the runs of w: %v", err)
	}
	st := task.Schedule + " " + task.SettledThrough.String()
	for _, r := range runs {
		st += " " + r.Status
	}
	return st
}
