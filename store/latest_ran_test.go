package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestLatestRan: the latest run as Tasks picks it, past the paused records
// of a pause (which ran nothing) too; nil for a task that never ran.
func TestLatestRan(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		ran := mustClaim(t, s, store.Run{Task: "job", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		finish(t, s, ran, store.StatusSucceeded, t0.Add(time.Minute))
		zero := 0
		for i, r := range []store.Run{
			{Slot: t0.Add(time.Hour), Status: store.StatusPaused, Error: "the task was paused"},
			{Slot: t0, Status: store.StatusSkipped, ExitCode: &zero, Error: "duplicate fire of slot x"},
			{Slot: t0.Add(2 * time.Hour), Status: store.StatusPaused, Error: "the task was paused"},
		} {
			r.Task, r.Trigger, r.Attempt, r.Host = "job", store.TriggerSchedule, 1, "testhost"
			r.StartedAt = t0.Add(time.Duration(i+1) * time.Hour)
			r.EndedAt = r.StartedAt
			if _, err := s.AddRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.LatestRan(ctx, "job")
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || got.ID != ran || got.Status != store.StatusSucceeded || !got.Slot.Equal(t0) {
			t.Errorf("LatestRan = %+v, want run %d (succeeded)", got, ran)
		}
		all, err := s.Tasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 1 || all[0].Latest == nil || all[0].Latest.Status != store.StatusPaused {
			t.Errorf("Tasks' latest = %+v, want the last paused record (the pause may still last)", all)
		}
		none, err := s.LatestRan(ctx, "nope")
		if err != nil || none != nil {
			t.Errorf("LatestRan of a task without runs = %+v, %v; want nil, nil", none, err)
		}
	})
}
