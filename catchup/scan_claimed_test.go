package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// lostClaim is a real ledger seen as a shared one, where another host holds
// one slot with a running claim when scan reads the slots, and loses it
// before scan moves the task's watermark: the task's ledger lock was taken,
// so that host's fire records a lock skip (exit 75) and runs nothing.
type lostClaim struct {
	store.Store
	// claimAt, when set: host b claims this slot just before this host's
	// replay of it does (after scan read the task).
	claimAt time.Time
}

func (l *lostClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !l.claimAt.IsZero() && req.Run.Slot.Equal(l.claimAt) {
		l.claimAt = time.Time{}
		_, err := l.Store.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: req.Run.Task, Slot: req.Run.Slot,
			Trigger: store.TriggerReplay, Status: store.StatusRunning, Attempt: 1, StartedAt: req.Run.StartedAt, Host: "b"}})
		if err != nil {
			return store.ClaimResult{}, err
		}
	}
	return l.Store.Claim(ctx, req)
}

func (l *lostClaim) Shared() bool { return true }

func (l *lostClaim) SetSettledOf(ctx context.Context, task string, registered store.Of, through time.Time) error {
	if err := giveBack(ctx, l.Store, through); err != nil {
		return err
	}
	return l.Store.SetSettledOf(ctx, task, registered, through)
}

// TestWatermarkStopsBelowHeldSlot: a slot that a run on another host holds,
// running, when scan reads the task or when its replay tries to claim it,
// is not settled: that run may yet give its claim back (its fire lost the
// task's ledger lock: a lock skip) before scan moves the watermark, and a
// watermark moved past the slot would hide it from every later scan, a slot
// lost silently. The watermark stops below it; the next scan replays it.
// Found so held, it also ends the task's replays in that scan (a slot after
// it replayed now could run before it: TestScanStopsATaskAtASlotHeldElsewhere).
func TestWatermarkStopsBelowHeldSlot(t *testing.T) {
	t.Parallel()
	type want struct{ missed, replayed int }
	for name, tc := range map[string]struct {
		claimedBeforeScan bool
		first, second     want
	}{
		"held when scan reads the task": {claimedBeforeScan: true, first: want{4, 0}, second: want{5, 5}},
		"held when its replay claims":   {first: want{5, 0}, second: want{5, 5}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			if res := f.run(t, f.request(t)); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			f.now = mustTime(t, "2026-03-01T15:30:00Z")
			held := mustTime(t, "2026-03-01T11:00:00Z")
			ledger := &lostClaim{Store: f.st}
			if tc.claimedBeforeScan {
				other, err := f.st.Claim(context.Background(), store.ClaimRequest{Run: store.Run{Task: "job", Slot: held,
					Trigger: store.TriggerReplay, Status: store.StatusRunning, Attempt: 1, StartedAt: f.now, Host: "b"}})
				if err != nil || !other.Claimed {
					t.Fatalf("host b's claim of 11:00: %+v, %v", other, err)
				}
			} else {
				ledger.claimAt = held
			}
			rep, err := Scan(context.Background(), ledger, f.m, scanRequest())
			if err != nil {
				t.Fatalf("first scan: %v", err)
			}
			if ts := rep.Tasks[0]; ts.Replayed != tc.first.replayed || len(ts.Missed) != tc.first.missed {
				t.Fatalf("first scan: missed %v, replayed %d; want %d missed and %d replayed (b holds 11:00)",
					ts.Missed, ts.Replayed, tc.first.missed, tc.first.replayed)
			}
			ts := f.scan(t, scanRequest())
			if ts.Replayed != tc.second.replayed || len(ts.Missed) != tc.second.missed || !ts.Missed[0].Equal(held) {
				t.Fatalf("second scan: missed %v, replayed %d; want %d missed from 11:00, whose claim host b gave back, "+
					"and %d replayed", ts.Missed, ts.Replayed, tc.second.missed, tc.second.replayed)
			}
			if got := f.job.runs(t); len(got) != 6 {
				t.Errorf("the job ran for %d slots, want 6 (10:00-15:00): %v", len(got), got)
			}
		})
	}
}
