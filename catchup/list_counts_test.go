package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// countingCounts is a ledger that counts the readers' calls that read
// every run of the ledger (StatusCounts, ExpiredCounts), the reads of one
// status by a seek per task (StatusCountByTask), and the per-task seeks
// that read one task's records of one status.
type countingCounts struct {
	store.Store
	all, byTask, seeks int
}

func (c *countingCounts) StatusCounts(ctx context.Context) (map[string]map[string]int64, error) {
	c.all++
	return c.Store.StatusCounts(ctx)
}

func (c *countingCounts) StatusCount(ctx context.Context, task, status string) (int64, error) {
	c.seeks++
	return c.Store.StatusCount(ctx, task, status)
}

func (c *countingCounts) StatusCountByTask(ctx context.Context, status string) (map[string]int64, error) {
	c.byTask++
	return c.Store.StatusCountByTask(ctx, status)
}

func (c *countingCounts) ExpiredCounts(ctx context.Context) (map[string]map[string]int64, error) {
	c.all++
	return c.Store.ExpiredCounts(ctx)
}

// TestListCountsOnlyWhenAsked: `ls` and `ls --missed` (text) show no run
// count, so List reads none: counting every run grew their cost with the
// length of the history. `ls -o json` asks for the expired records, read
// by a seek per task, all in one read (not one read per task: a round
// trip each on a shared ledger); metrics asks for every count.
func TestListCountsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		counts                         ListCounts
		wantAll, wantByTask, wantSeeks int
		wantExpired, wantRan           int64
	}{
		"none (text ls)":       {counts: CountsNone},
		"expired (ls -o json)": {counts: CountsExpired, wantByTask: 1, wantExpired: 2},
		"all (metrics)":        {counts: CountsAll, wantAll: 1, wantExpired: 2, wantRan: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			ctx := context.Background()
			reg := mustTime(t, "2026-11-12T00:00:00Z")
			for _, task := range []string{"a", "b"} {
				if err := st.UpsertTask(ctx, store.Task{Name: task, Schedule: "0 * * * *", TZ: "UTC",
					RegisteredAt: reg, SettledThrough: reg}); err != nil {
					t.Fatal(err)
				}
			}
			for i, status := range []string{store.StatusExpired, store.StatusExpired, store.StatusSucceeded} {
				slot := reg.Add(time.Duration(i+1) * time.Hour)
				r := store.Run{Task: "a", Slot: slot, Status: status, Trigger: store.TriggerReplay, Attempt: 1,
					Host: "testhost", BootID: "boot-1", StartedAt: slot.Add(time.Second), EndedAt: slot.Add(2 * time.Second)}
				if status == store.StatusExpired {
					r.Reason = store.ReasonMaxAge
				}
				if _, err := st.AddRun(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			cc := &countingCounts{Store: st}
			m := testMachine(db, mustTime(t, "2026-11-12T04:00:00Z"))
			list, err := List(ctx, cc, m, ListRequest{Rule: MissedRule{Tolerance: 5 * time.Minute}, Counts: tc.counts})
			if err != nil {
				t.Fatal(err)
			}
			if cc.all != tc.wantAll {
				t.Errorf("%d reads of every run's count, want %d", cc.all, tc.wantAll)
			}
			if cc.byTask != tc.wantByTask {
				t.Errorf("%d reads of every task's count of one status, want %d", cc.byTask, tc.wantByTask)
			}
			if cc.seeks != tc.wantSeeks {
				t.Errorf("%d reads of one task's count, want %d", cc.seeks, tc.wantSeeks)
			}
			if got := list[0].Counts[store.StatusExpired]; list[0].Task.Name != "a" || got != tc.wantExpired {
				t.Errorf("task %s: %d expired, want %d", list[0].Task.Name, got, tc.wantExpired)
			}
			if got := list[0].Counts[store.StatusSucceeded]; got != tc.wantRan {
				t.Errorf("task a: %d succeeded, want %d", got, tc.wantRan)
			}
		})
	}
}
