package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// A prune's floor: the latest slot of a run prune deleted. No command that
// lowers the watermark (UnsettlePaused, Backdate, ResetClock) lowers it
// below that slot, whose failure (or success) is gone with its run: below
// it, a slot that ran reads missed, and scan replays it.
func TestWatermarkStaysAbovePrunedSlots(t *testing.T) {
	const day = 24 * time.Hour
	failedSlot := t0.Add(3 * day)
	floorSlot := t0.Add(4 * day) // prune keeps the latest run (5 days in), takes the others
	tests := map[string]func(t *testing.T, s store.Store) time.Time{
		"resume --replay-paused": func(t *testing.T, s store.Store) time.Time {
			n, floor, err := s.UnsettlePaused(t.Context(), "d", t0)
			if err != nil || n != 0 || !floor.Equal(floorSlot) {
				t.Errorf("UnsettlePaused = %d, floor %v, %v; want 0 marked, floor %v (the latest pruned slot)", n, floor, err, floorSlot)
			}
			return t0.Add(-time.Second)
		},
		"backdate": func(t *testing.T, s store.Store) time.Time {
			if _, err := s.Backdate(t.Context(), "d", t0.Add(-day)); err != nil {
				t.Fatal(err)
			}
			return t0.Add(-day - time.Second)
		},
		"reset-clock": func(t *testing.T, s store.Store) time.Time {
			now := t0.Add(5*day + time.Hour)
			if _, err := s.ResetClock(t.Context(), store.ClockReset{Task: "d", Now: now, Floor: t0}); err != nil {
				t.Fatal(err)
			}
			return t0
		},
	}
	forEachBackend(t, func(t *testing.T, be backend) {
		for name, lower := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				upsert(t, s, store.Task{Name: "d", Schedule: "0 0 * * *", RegisteredAt: t0, UpdatedAt: t0})
				for i := range 6 {
					slot := t0.Add(time.Duration(i) * day)
					id := mustClaim(t, s, store.Run{Task: "d", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot})
					status := store.StatusSucceeded
					if slot.Equal(failedSlot) {
						status = store.StatusFailed
					}
					finish(t, s, id, status, slot.Add(time.Minute))
				}
				if _, err := s.Prune(ctx, store.PruneRequest{Before: t0.Add(10 * day), Batch: 2}); err != nil {
					t.Fatal(err)
				}
				if err := s.SetSettled(ctx, "d", t0.Add(10*day)); err != nil {
					t.Fatal(err)
				}
				asked := lower(t, s)
				task, err := s.Task(ctx, "d")
				if err != nil {
					t.Fatal(err)
				}
				if !task.SettledThrough.Equal(floorSlot) {
					t.Errorf("watermark %v after asking for %v; want %v, the latest pruned slot", task.SettledThrough, asked, floorSlot)
				}
			})
		}
	})
}
