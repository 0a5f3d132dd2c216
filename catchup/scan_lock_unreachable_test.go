package catchup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// lockUnreachable is a real ledger seen as a shared one whose first
// LockTask fails as a lost connection does: the claim is recorded, and
// the ledger-wide lock cannot be taken.
type lockUnreachable struct {
	store.Store
	failed bool
	err    error // the error of the first LockTask: unreachable when nil
}

func (l *lockUnreachable) LockTask(ctx context.Context, lk store.TaskLock) (func(), bool, error) {
	if !l.failed {
		l.failed = true
		if l.err != nil {
			return nil, false, l.err
		}
		return nil, false, fmt.Errorf("lock task %s: %w: FATAL: terminating connection due to administrator command", lk.Task, store.ErrLedgerUnreachable)
	}
	return l.Store.LockTask(ctx, lk)
}

func (l *lockUnreachable) Shared() bool { return true }

// claimUnreachable is a real ledger seen as a shared one whose first Claim
// fails as a lost connection does: nothing is recorded, the fire is noted.
type claimUnreachable struct {
	store.Store
	failed bool
}

func (c *claimUnreachable) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !c.failed {
		c.failed = true
		return store.ClaimResult{}, fmt.Errorf("write ledger: %w: FATAL: terminating connection due to administrator command", store.ErrLedgerUnreachable)
	}
	return c.Store.Claim(ctx, req)
}

func (c *claimUnreachable) Shared() bool { return true }

// TestScanLockTakeUnreachable: a replay whose claim was recorded but whose
// task lock could not be taken because the ledger went out of reach (a
// PostgreSQL connection killed) is given back as a skip that the next scan
// replays, and the task's later slots wait for it; its cause is the
// ledger's (ledger-unreachable), not lock-busy, and scan's warning does
// not say the task is running: nothing held its lock. So for a replay
// whose claim could not be written (noted on the host, not run).
func TestScanLockTakeUnreachable(t *testing.T) {
	t.Parallel()
	faults := map[string]func(store.Store) store.Store{
		"lock":  func(st store.Store) store.Store { return &lockUnreachable{Store: st} },
		"claim": func(st store.Store) store.Store { return &claimUnreachable{Store: st} },
		"lock statement timeout": func(st store.Store) store.Store {
			return &lockUnreachable{Store: st, err: errors.New("lock task job: ERROR: canceling statement due to statement timeout (SQLSTATE 57014)")}
		},
	}
	for backend, open := range sharedLedgers {
		for fault, wrap := range faults {
			t.Run(backend+"/"+fault, func(t *testing.T) {
				st, db := open(t)
				m, job, _ := hourlyThreeMissed(t, st, db)
				scanRefusedThenReplayed(t, st, wrap(st), m, job, "could not reach the ledger", "is running", CauseUnreachable)
			})
		}
	}
}

// scanRefusedThenReplayed scans through refusing, a view of st whose first
// claim or lock of the task hourlyThreeMissed left three slots missed of
// fails: 11:00 is skipped with a warning saying want (never notWant), 12:00
// and 13:00 left; then scans st, which replays the three, oldest first,
// each once, 11:00's cause cause.
func scanRefusedThenReplayed(t *testing.T, st, refusing store.Store, m Machine, job slotLog, want, notWant, cause string) {
	t.Helper()
	rep, err := Scan(context.Background(), refusing, m, scanRequest())
	if err != nil {
		t.Fatalf("first scan: %v", err)
	}
	ts := rep.Tasks[0]
	if ts.Replayed != 0 || ts.Skipped != 1 || ts.Left != 2 {
		t.Errorf("first scan: replayed %d, skipped %d, left %d; want 11:00 skipped, 12:00 and 13:00 left", ts.Replayed, ts.Skipped, ts.Left)
	}
	warn := strings.Join(ts.Warnings, "\n")
	if strings.Contains(warn, notWant) || !strings.Contains(warn, want) {
		t.Errorf("first scan warned %q, want %q said, not %q", warn, want, notWant)
	}
	rep, err = Scan(context.Background(), st, m, scanRequest())
	if err != nil {
		t.Fatalf("second scan: %v", err)
	}
	if ts := rep.Tasks[0]; ts.Replayed != 3 || len(ts.Causes) == 0 || ts.Causes[0] != cause {
		t.Errorf("second scan: replayed %d, causes %q; want 3 replayed, 11:00's cause %s", ts.Replayed, ts.Causes, cause)
	}
	want = strings.Join(append(hours("schedule", 10), hours("replay", 11, 12, 13)...), "|")
	if got := strings.Join(job.runs(t), "|"); got != want {
		t.Errorf("the job ran for %v, want %v: oldest first, each slot once", got, want)
	}
}
