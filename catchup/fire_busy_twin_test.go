package catchup

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// afterFirstRead is a real ledger that calls act once its first SlotRuns
// (a scheduled fire's check for a duplicate, right after its lock attempt)
// has read the slot.
type afterFirstRead struct {
	store.Store
	act  func()
	once sync.Once
}

func (r *afterFirstRead) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]store.Run, error) {
	runs, err := r.Store.SlotRuns(ctx, task, from, to, grace)
	r.once.Do(r.act)
	return runs, err
}

// TestFireBesideItsTwin: two fires of one slot (a crontab installed twice,
// two cron daemons) start together. The first takes the task's lock and
// claims the slot a moment later; the second finds the lock held, and no
// claim yet. Whatever the second does must not lose the slot: it is a
// duplicate once the first has claimed, and it settles the slot as skipped
// (--on-busy skip) only when the lock is known to be held by a run of
// another slot. A settled slot whose run is then cut is never replayed.
func TestFireBesideItsTwin(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		policy string
		// twin is what holds the lock, given the fire's slot: it returns the
		// act run at the fire's first ledger read (nil: none).
		twin       func(t *testing.T, f *runFixture, slot time.Time) func()
		wantExit   int
		wantSettle bool // the fire's record settles its slot (--on-busy skip)
	}{
		"twin claims while the fire looks, skip":   {policy: "skip", twin: claimsSlot, wantExit: 0},
		"twin claims while the fire looks, replay": {policy: "replay", twin: claimsSlot, wantExit: 0},
		// The twin's claim is stuck behind another writer: the fire cannot
		// tell what holds the lock, so it leaves the slot to scan.
		"twin has not claimed, skip":   {policy: "skip", twin: lockHeldUnclaimed, wantExit: exitLocked},
		"twin has not claimed, replay": {policy: "replay", twin: lockHeldUnclaimed, wantExit: exitLocked},
		// What --on-busy skip is for: a live run of the previous slot.
		"a run of the previous slot, skip": {policy: "skip", twin: runsPrevious, wantExit: exitLocked, wantSettle: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			slot := mustTime(t, "2026-03-01T10:00:00Z")
			twin, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
			if err != nil {
				t.Fatal(err)
			}
			defer twin.close()
			if ok, err := twin.tryLock(); err != nil || !ok {
				t.Fatalf("twin's lock: %v, %v", ok, err)
			}
			var ledger store.Store = f.st
			if act := tc.twin(t, f, slot); act != nil {
				ledger = &afterFirstRead{Store: f.st, act: act}
			}
			req := f.request(t)
			req.OnBusy = tc.policy
			res, err := Run(context.Background(), ledger, nil, f.m, req)
			if err != nil || res.ExitCode != tc.wantExit || res.Ran {
				t.Fatalf("the second fire: exit %d, ran %v, %v; want exit %d, not run", res.ExitCode, res.Ran, err, tc.wantExit)
			}
			if got := f.job.runs(t); len(got) != 0 {
				t.Errorf("the second fire ran the job: %v", got)
			}
			settled := false
			for _, r := range f.history(t) {
				if r.Slot.Equal(slot) && r.Status == store.StatusSkipped && r.ExitCode == nil {
					settled = true
				}
			}
			if settled != tc.wantSettle {
				t.Errorf("slot 10:00 settled as skipped: %v, want %v (history %+v)", settled, tc.wantSettle, f.history(t))
			}
		})
	}
}

// claimsSlot: the twin, a live process of this host, claims the slot.
func claimsSlot(t *testing.T, f *runFixture, slot time.Time) func() {
	return func() {
		twinClaim(t, f, slot)
	}
}

// lockHeldUnclaimed: the twin holds the lock and has claimed nothing yet.
func lockHeldUnclaimed(*testing.T, *runFixture, time.Time) func() { return nil }

// runsPrevious: the lock's holder is a live run of the 09:00 slot.
func runsPrevious(t *testing.T, f *runFixture, slot time.Time) func() {
	twinClaim(t, f, slot.Add(-time.Hour))
	return nil
}

// twinClaim claims slot for a live process of this host (this test's).
func twinClaim(t *testing.T, f *runFixture, slot time.Time) {
	t.Helper()
	run := store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule, Attempt: 1, StartedAt: f.now,
		Host: f.m.Host, PID: os.Getpid(), BootID: f.m.BootID}
	if c, err := f.st.Claim(context.Background(), store.ClaimRequest{Run: run}); err != nil || !c.Claimed {
		t.Errorf("the twin's claim of %v: %+v, %v", slot, c, err)
	}
}
