package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPruneKeepsWhatHidesAnOlderSlot: past a pause, ls shows LatestRan:
// the fire of 20:00, not a backfill of 17:00 recorded after it, nor the
// runs of 18:00 and 19:00 recorded after that (by backfills here, or copied
// in from another ledger), which the fire keeps hidden
// (TestLatestPassesAnOlderSlot). Prune --keep 1 keeps the fire, the newest
// run that ran (19:00, --keep) and the paused record of the last slot, in
// every batch, and its dry run counts the same: deleting the fire would
// let the 19:00 failure show.
func TestPruneKeepsWhatHidesAnOlderSlot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		for _, copied := range []bool{false, true} {
			name := map[bool]string{false: "recorded here", true: "copied in"}[copied]
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				runs := olderSlotsLater(t, s, copied, true)
				var paused []int64
				for _, slot := range []time.Time{t0.Add(21 * time.Hour), t0.Add(22 * time.Hour)} {
					id, err := s.AddRun(ctx, store.Run{Task: "nightly", Slot: slot, Trigger: store.TriggerSchedule, Status: store.StatusPaused,
						Attempt: 1, StartedAt: slot, EndedAt: slot, Error: "the task was paused"})
					if err != nil {
						t.Fatal(err)
					}
					paused = append(paused, id)
				}
				shown, gone := runs.fire, []int64{runs.backfill, runs.older[0], paused[0]}
				if r, err := s.LatestRan(ctx, "nightly"); err != nil || r == nil || r.ID != shown {
					t.Fatalf("before the prune, LatestRan = %+v, %v; want run %d", r, err, shown)
				}
				req := store.PruneRequest{Before: t0.Add(100 * time.Hour), Keep: 1, Batch: 1, DryRun: true}
				dry, err := s.Prune(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				before := allRuns(t, s)
				req.DryRun = false
				res, err := s.Prune(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if got := deletedSince(t, s, before); !slices.Equal(got, gone) || res.Runs != int64(len(gone)) || dry.Runs != res.Runs {
					t.Errorf("Prune deleted %v (%d; dry run %d), want %v", got, res.Runs, dry.Runs, gone)
				}
				if r, err := s.LatestRan(ctx, "nightly"); err != nil || r == nil || r.ID != shown {
					t.Errorf("after the prune, LatestRan = %+v, %v; want run %d", r, err, shown)
				}
				all, err := s.Tasks(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := latestID(all, "nightly"); got != paused[1] {
					t.Errorf("after the prune, Tasks' latest = run %d, want the paused record %d (the pause may last)", got, paused[1])
				}
				if again, err := s.Prune(ctx, req); err != nil || again.Runs != 0 {
					t.Errorf("a second prune = %+v, %v; want nothing deleted", again, err)
				}
			})
		}
	})
}
