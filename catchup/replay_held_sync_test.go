package catchup

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// lostSyncLedger is a ledger whose disk fails as the claim of slot at
// commits, carrying the outcome of the task's replay before it (held for
// it: replay_held.go): that claim's sync, run in the background while its
// job starts, fails, and what the failing disk keeps is the claim without
// the outcome it carried (a power cut, or the repair after the error, loses
// the commit's unsynced frames: an ext4 on a loop device whose backing
// store filled did). Every later write fails with the sync's error.
// With quiet, the later writes succeed, and only the claim's own sync
// (store.ClaimResult.Synced) tells: the error went to another task's write
// (scan --concurrency).
type lostSyncLedger struct {
	store.Store
	at     time.Time
	quiet  bool
	failed bool
}

var errLostSync = fmt.Errorf("write ledger x: sync the ledger's WAL: %w", syscall.EIO)

func (l *lostSyncLedger) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if l.failed {
		return store.ClaimResult{}, errLostSync
	}
	if !req.Run.Slot.Equal(l.at) || req.Settle == nil {
		return l.Store.Claim(ctx, req)
	}
	l.failed = !l.quiet
	req.Settle = nil
	c, err := l.Store.Claim(ctx, req)
	c.Synced = func() error { return errLostSync }
	return c, err
}

func (l *lostSyncLedger) Finish(ctx context.Context, id int64, out store.Outcome) error {
	if l.failed {
		return errLostSync
	}
	return l.Store.Finish(ctx, id, out)
}

// TestHeldOutcomeOfALostClaimSyncIsNoted: scan's replay of 10:00 keeps its
// outcome for the claim of 11:00, whose commit's sync fails (an I/O error):
// the outcome it carried may be lost with it, so it is noted on the host
// as the outcome whose own write failed is, and the scan after the repair
// records it and never runs 10:00 again. Before, only 11:00's outcome was
// noted, and 10:00, which ran, read interrupted and was replayed.
func TestHeldOutcomeOfALostClaimSyncIsNoted(t *testing.T) {
	t.Parallel()
	for name, quiet := range map[string]bool{"every later write fails": false, "only the claim's sync fails": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			heldOutcomeOfALostClaimSync(t, quiet)
		})
	}
}

func heldOutcomeOfALostClaimSync(t *testing.T, quiet bool) {
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T12:30:00Z")
	var notices []string
	f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
	failing := &lostSyncLedger{Store: f.st, at: mustTime(t, "2026-03-01T11:00:00Z"), quiet: quiet}
	ran := hours("replay", 10, 11)
	if _, err := Scan(context.Background(), failing, f.m, scanRequest()); quiet {
		ran = hours("replay", 10, 11, 12)
		if err != nil {
			t.Fatalf("scan whose later writes succeed: %v", err)
		}
	} else if err == nil {
		t.Fatalf("scan on the failing disk: no error; notices %q", notices)
	}
	if got, want := f.job.runs(t), slices.Concat(hours("schedule", 9), ran); !slices.Equal(got, want) {
		t.Fatalf("on the failing disk the job ran for %q, want %q", got, want)
	}
	if !strings.Contains(strings.Join(notices, "\n"), "the outcome of run 2 is noted") {
		t.Errorf("notices %q: the outcome of 10:00's run (2), which the lost claim carried, is not noted", notices)
	}

	// Repaired: the ledger is what the disk kept.
	f.now = mustTime(t, "2026-03-01T12:40:00Z")
	f.scan(t, scanRequest())
	if got, want := f.job.runs(t), slices.Concat(hours("schedule", 9), hours("replay", 10, 11, 12)); !slices.Equal(got, want) {
		t.Errorf("after the repair the job ran for %q, want %q (each slot once)", got, want)
	}
	for _, r := range f.history(t) {
		if r.Status != store.StatusSucceeded {
			t.Errorf("run %d of %s: %s, want succeeded", r.ID, r.Slot.Format(time.RFC3339), r.Status)
		}
	}
}
