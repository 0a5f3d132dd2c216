package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// A new schedule or zone counts from when it was set: the watermark never
// goes back below that point, as it never goes below a prune's floor. A
// dead run of a slot before the change (a run of the old schedule that was
// running then, or a run --slot of the new schedule's earlier slot) no
// longer lowers it there when it is marked interrupted: the new schedule's
// slots before the change came back missed, and scan ran them; and a slot
// of the old schedule, which no scan replays again, held the watermark
// below it for good. A task with no schedule before, or retired, counts
// from its new registration as before.
func TestScheduleChangeFloorsTheWatermark(t *testing.T) {
	const day = 24 * time.Hour
	oldSlot := t0.Add(2 * time.Hour) // a slot of "0 2 * * *", running at the change
	change := t0.Add(3*time.Hour - time.Second)
	tests := map[string]struct {
		before store.Task // the registration before the change
		after  store.Task // the fire's, with the watermark it sets
		want   time.Time  // the watermark once the old run is interrupted
	}{
		"schedule changed": {
			before: store.Task{Schedule: "0 2 * * *", TZ: "UTC"},
			after:  store.Task{Schedule: "0 3 * * *", TZ: "UTC", SettledThrough: change},
			want:   change,
		},
		"zone changed": {
			before: store.Task{Schedule: "0 2 * * *", TZ: "UTC"},
			after:  store.Task{Schedule: "0 2 * * *", TZ: "Europe/Berlin", SettledThrough: change},
			want:   change,
		},
		"no schedule before": {
			before: store.Task{},
			after:  store.Task{Schedule: "0 3 * * *", TZ: "UTC", SettledThrough: change},
			want:   oldSlot.Add(-time.Second),
		},
	}
	forEachBackend(t, func(t *testing.T, be backend) {
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				reg := func(x store.Task) store.Task {
					x.Name, x.Source, x.RegisteredAt, x.UpdatedAt = "d", "run", t0, t0
					return x
				}
				upsert(t, s, reg(tc.before))
				id := mustClaim(t, s, store.Run{Task: "d", Slot: oldSlot, Trigger: store.TriggerSchedule, StartedAt: oldSlot})
				upsert(t, s, reg(tc.after))
				if _, err := s.Interrupt(ctx, id, change.Add(time.Hour), "the host rebooted while it ran"); err != nil {
					t.Fatal(err)
				}
				if got := watermark(t, s, "d"); !got.Equal(tc.want) {
					t.Fatalf("after the old run's Interrupt: SettledThrough = %v, want %v", got, tc.want)
				}
				// Nor does the dead run hold the watermark back from then on.
				if tc.want.Equal(change) {
					if err := s.SetSettled(ctx, "d", t0.Add(day)); err != nil {
						t.Fatal(err)
					}
					if got := watermark(t, s, "d"); !got.Equal(t0.Add(day)) {
						t.Errorf("SetSettled past the change: SettledThrough = %v, want %v", got, t0.Add(day))
					}
				}
			})
		}
	})
}
