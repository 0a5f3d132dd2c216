package catchup

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// failingSecondBatch is a ledger whose second AddRunsOf fails, as a scan
// killed (or a disk filled) between two batches of expiries.
type failingSecondBatch struct {
	store.Store
	calls int
}

var errBatchFault = errors.New("the ledger failed between two batches")

func (f *failingSecondBatch) AddRunsOf(ctx context.Context, of store.Of, runs []store.Run) ([]int64, error) {
	f.calls++
	if f.calls == 2 {
		return nil, errBatchFault
	}
	return f.Store.AddRunsOf(ctx, of, runs)
}

// TestExpireInBatches: a gap of more slots than a batch is expired in
// batches, each slot once, whatever stops the scan between two: the
// batches recorded stay, and the next scan expires the rest, none twice.
func TestExpireInBatches(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-01-01T00:00:30Z")
	req := f.request(t)
	req.Schedule = mustSchedule(t, "* * * * *", "UTC")
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	// 10 days of minutes: past the 7-day window, 2.5 batches expire as
	// too old; the rest, past --max-replays 1, as beyond it.
	f.now = f.now.Add(10 * 24 * time.Hour)
	sr := scanRequest()
	sr.MaxReplays = 1
	faulty := &failingSecondBatch{Store: f.st}
	if _, err := Scan(context.Background(), faulty, f.m, sr); err == nil {
		t.Fatal("the scan whose ledger failed between two batches reported no error")
	}
	first := countExpired(t, f)
	if first != expireBatch {
		t.Fatalf("after the failed scan: %d expired records, want the first batch's %d", first, expireBatch)
	}
	rep, err := Scan(context.Background(), f.st, f.m, sr)
	if err != nil {
		t.Fatal(err)
	}
	ts := rep.Tasks[0]
	want := 10*24*60 - 5 - 1 // every minute but those within the tolerance, less the one replayed
	if ts.Replayed != 1 || first+ts.Expired != want {
		t.Errorf("the next scan replayed %d and expired %d (%d before); want 1 and %d in all", ts.Replayed, ts.Expired, first, want)
	}
	if got := countExpired(t, f); got != want {
		t.Errorf("%d expired records, want %d: each slot once", got, want)
	}
	rep, err = Scan(context.Background(), f.st, f.m, sr)
	if err != nil {
		t.Fatal(err)
	}
	if ts := rep.Tasks[0]; ts.Expired != 0 || ts.Replayed != 0 || countExpired(t, f) != want {
		t.Errorf("a third scan expired %d, replayed %d; want nothing again", ts.Expired, ts.Replayed)
	}
}

// countExpired counts the task's expired records, each slot once.
func countExpired(t *testing.T, f *runFixture) int {
	t.Helper()
	runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: "job", Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	slots := map[int64]bool{}
	for _, r := range runs {
		if r.Status != store.StatusExpired {
			continue
		}
		if slots[r.Slot.Unix()] {
			t.Fatalf("slot %s recorded expired twice", r.Slot)
		}
		slots[r.Slot.Unix()] = true
	}
	return len(slots)
}
