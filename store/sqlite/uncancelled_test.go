package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestStopDoesNotCutLedgerWrites: a stop (SIGTERM to scan or the daemon)
// cancels the command's context while a replay's claim or outcome may be on
// its way to the ledger; the write still lands, or a run that ran would be
// left without its outcome.
func TestStopDoesNotCutLedgerWrites(t *testing.T) {
	s, _ := newLedger(t)
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	code := 0
	res, err := s.Claim(stopped, store.ClaimRequest{Run: store.Run{Task: "t", Slot: t0, StartedAt: t0}})
	if err != nil || !res.Claimed {
		t.Fatalf("claim with a cancelled context: %+v, %v", res, err)
	}
	end := t0.Add(time.Second)
	if err := s.Finish(stopped, res.Run.ID, store.Outcome{Status: store.StatusSucceeded, ExitCode: &code, EndedAt: end}); err != nil {
		t.Fatalf("finish with a cancelled context: %v", err)
	}
	got, err := s.Run(stopped, res.Run.ID)
	if err != nil {
		t.Fatalf("read with a cancelled context: %v", err)
	}
	if got.Status != store.StatusSucceeded || !got.EndedAt.Equal(end) {
		t.Errorf("run after a stop = %s ended %v, want succeeded ended %v", got.Status, got.EndedAt, end)
	}
}
