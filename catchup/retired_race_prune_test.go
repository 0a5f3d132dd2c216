package catchup

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestForgetAfterPruneRecordedLeavesItWhole: a `catchup forget` that
// commits after prune recorded the task's old slots (expired, and paused
// in its pause), before prune moves the watermarks and deletes the runs,
// wins: prune moves the retired task's watermark no further and deletes
// none of its runs (store.Prune refuses, in its transaction, a task
// retired since it was read), and leaves it whole, saying why, once.
// Before, the retired task's watermark went to the cut and its old runs
// were deleted.
func TestForgetAfterPruneRecordedLeavesItWhole(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, paused := range []bool{false, true} {
			name := backend
			if paused {
				name += "/paused"
			}
			t.Run(name, func(t *testing.T) {
				ctx := context.Background()
				f, st := purgeRaceFixture(t, backend)
				if paused {
					if err := st.SetPause(ctx, "job", mustTime(t, "2026-03-02T00:00:00Z"), time.Time{}); err != nil {
						t.Fatal(err)
					}
				}
				f.now = mustTime(t, "2026-03-20T12:30:00Z") // the cut: 03-13 12:30; slots before it are older than the window
				racing := &retireRaceWrite{Store: st, t: t, m: f.m}
				var forgot store.Task // the task as forget left it
				req := PruneRequest{OlderThan: MinPruneAge, Keep: 1, beforePrune: func() {
					racing.retire(ctx)
					var err error
					if forgot, err = st.Task(ctx, "job"); err != nil {
						t.Fatal(err)
					}
				}}
				got, err := Prune(ctx, st, f.m, req)
				if err != nil {
					t.Fatalf("Prune: %v", err)
				}
				if !racing.retired {
					t.Fatal("the forget never came: prune did not reach the ledger's prune")
				}
				if len(got.Recorded) != 1 || got.Recorded[0].Expired+got.Recorded[0].Paused == 0 {
					t.Errorf("prune recorded %+v; want the task's old slots, recorded before the forget", got.Recorded)
				}
				cur, err := st.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				if cur.RetiredAt.IsZero() {
					t.Errorf("task job is not retired; want it retired")
				}
				if !cur.SettledThrough.Equal(forgot.SettledThrough) {
					t.Errorf("the retired task's watermark moved to %s; want %s, as forget left it", rfc(cur.SettledThrough), rfc(forgot.SettledThrough))
				}
				if got.Runs != 0 {
					t.Errorf("prune deleted %d runs; want none (the retired task's are left)", got.Runs)
				}
				hist, err := st.History(ctx, store.HistoryFilter{Task: "job", Limit: 10000})
				if err != nil {
					t.Fatal(err)
				}
				first := false
				for _, r := range hist {
					first = first || r.Trigger == store.TriggerSchedule && r.Slot.Equal(mustTime(t, "2026-03-01T09:00:00Z"))
				}
				if !first {
					t.Errorf("the first fire's run of the retired task was deleted; want it kept")
				}
				if len(got.Left) != 1 || got.Left[0].Task != "job" || !strings.Contains(got.Left[0].Why, "retired since prune read it") ||
					!strings.Contains(got.Left[0].Why, "as forget left them") {
					t.Errorf("prune left %+v; want task job once: retired since prune read it, its watermark and runs as forget left them", got.Left)
				}
			})
		}
	}
}
