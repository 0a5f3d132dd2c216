package sqlite_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// TestEveryWriteChecksTheIndex: once the ledger's -shm was deleted, the
// writes that record runs in a batch (a scan's expiries, the fires noted
// while the ledger could not take them), a boot's sighting and a
// reset of a task's clock are refused
// as a claim or an outcome is (ErrIndexReplaced): written through the
// stale WAL index they would overwrite what another process committed
// through the new one.
func TestEveryWriteChecksTheIndex(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		write func(s *sqlite.Ledger) error
	}{
		{name: "AddRuns", write: func(s *sqlite.Ledger) error {
			_, err := s.AddRuns(ctx, []store.Run{{Task: "job", Slot: t0, Status: store.StatusExpired, StartedAt: t0, EndedAt: t0}})
			return err
		}},
		{name: "SeeBoot", write: func(s *sqlite.Ledger) error {
			return s.SeeBoot(ctx, store.Boot{Host: "h", ID: "b", Time: t0, LastSeen: t0})
		}},
		{name: "ResetClock", write: func(s *sqlite.Ledger) error {
			_, err := s.ResetClock(ctx, store.ClockReset{Task: "job"})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, path := newLedger(t)
			if err := s.UpsertTask(ctx, store.Task{Name: "job", Schedule: "* * * * *", RegisteredAt: t0}); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(path + "-shm"); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(s); !errors.Is(err, sqlite.ErrIndexReplaced) {
				t.Errorf("%s after the -shm was deleted: %v; want ErrIndexReplaced", tc.name, err)
			}
		})
	}
}
