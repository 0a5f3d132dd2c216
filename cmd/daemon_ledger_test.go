package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// fakeLedger is a ledger whose UpsertTask returns err; every other
// method but Close and SlotRunsOf is left out (nil).
type fakeLedger struct {
	store.Store
	n      int
	err    error
	closed bool
}

func (f *fakeLedger) UpsertTask(context.Context, store.Task) error { return f.err }
func (f *fakeLedger) Close() error                                 { f.closed = true; return nil }
func (f *fakeLedger) SlotRunsOf(_ context.Context, _ []store.SlotRange, _ time.Duration, fn func(int, []store.Run) error) error {
	return fn(0, nil)
}

// TestDaemonReopensItsLedger: a write refused because the SQLite ledger's
// file or -shm was replaced makes the daemon close its ledger and open the
// one at its path, once no call on the old one is in flight, saying so
// once; other errors do not; a reopen that fails is tried again later.
func TestDaemonReopensItsLedger(t *testing.T) {
	moved := fmt.Errorf("write ledger x: %w (it was deleted)", store.ErrLedgerMoved)
	index := fmt.Errorf("write ledger x: %w (its -shm was deleted)", sqlite.ErrIndexReplaced)
	for _, tc := range []struct {
		name       string
		err        error
		inFlight   bool  // refused inside another call, which returns later
		openErr    error // the first reopen fails so
		wantReopen bool
	}{
		{name: "ledger_moved", err: moved, wantReopen: true},
		{name: "index_replaced", err: index, wantReopen: true},
		{name: "other_error", err: errors.New("disk I/O error")},
		{name: "refused_mid_call", err: index, inFlight: true, wantReopen: true},
		{name: "reopen_fails_first", err: moved, openErr: store.ErrNoLedger, wantReopen: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			first := &fakeLedger{n: 1, err: tc.err}
			opened := 1
			openErr := tc.openErr
			rl := &reopening{cur: first, log: slog.New(slog.NewTextHandler(&buf, nil)),
				open: func(context.Context) (store.Store, error) {
					if openErr != nil {
						err := openErr
						openErr = nil
						return nil, err
					}
					opened++
					return &fakeLedger{n: opened}, nil
				}}
			ctx := context.Background()
			if tc.inFlight {
				rl.SlotRunsOf(ctx, nil, 0, func(int, []store.Run) error {
					rl.UpsertTask(ctx, store.Task{})
					if rl.UpsertTask(ctx, store.Task{}); first.closed || rl.cur != first {
						t.Errorf("reopened while a call on the old ledger was in flight")
					}
					return nil
				})
			} else {
				rl.UpsertTask(ctx, store.Task{})
			}
			rl.UpsertTask(ctx, store.Task{}) // the next call: reopens
			if tc.openErr != nil {
				if !strings.Contains(buf.String(), "event=reopen-failed") || opened != 1 {
					t.Fatalf("a failed reopen: opened %d, log:\n%s", opened, buf.String())
				}
				rl.UpsertTask(ctx, store.Task{})
				if opened != 1 {
					t.Fatalf("tried again before %v", reopenRetry)
				}
				rl.retryAt = time.Time{} // the retry is due
				rl.UpsertTask(ctx, store.Task{})
			}
			rl.UpsertTask(ctx, store.Task{})
			reopened := rl.cur.(*fakeLedger).n == 2
			if reopened != tc.wantReopen || first.closed != tc.wantReopen || opened > 2 {
				t.Errorf("reopened %v (opened %d, first closed %v), want %v", reopened, opened, first.closed, tc.wantReopen)
			}
			if n := strings.Count(buf.String(), "event=reopen\n"); n != map[bool]int{true: 1}[tc.wantReopen] {
				t.Errorf("said %d times it reopened the ledger; log:\n%s", n, buf.String())
			}
		})
	}
}
