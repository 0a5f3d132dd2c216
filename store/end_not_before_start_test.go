package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// An interrupted run's end is never before its start: a scan whose clock
// is behind the dead run's start (set back, or another host's) records the
// end at the start, so that history, show, JSON and metrics never show a
// negative duration.
func TestInterruptEndNotBeforeStart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		start := t0.Add(2 * time.Hour)
		tests := map[string]struct {
			at, want time.Time
		}{
			"clock behind the start": {at: start.Add(-30 * time.Minute), want: start},
			"clock after the start":  {at: start.Add(time.Minute), want: start.Add(time.Minute)},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				upsert(t, s, store.Task{Name: "backup", Schedule: "@hourly", RegisteredAt: t0, UpdatedAt: t0})
				id := mustClaim(t, s, store.Run{Task: "backup", Slot: start, Trigger: store.TriggerSchedule, StartedAt: start})
				if ok, err := s.Interrupt(t.Context(), id, tc.at, "gone"); err != nil || !ok {
					t.Fatalf("Interrupt = %v, %v", ok, err)
				}
				r, err := s.Run(t.Context(), id)
				if err != nil {
					t.Fatal(err)
				}
				if !r.EndedAt.Equal(tc.want) {
					t.Errorf("EndedAt = %v, want %v (started %v)", r.EndedAt, tc.want, r.StartedAt)
				}
			})
		}
	})
}

// A finished run's end is never before its start either: a run during
// which the clock went back (the clock was set back, or stepped by NTP)
// records its end at its start, a duration of 0.
func TestFinishEndNotBeforeStart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		start := t0.Add(2 * time.Hour)
		tests := map[string]struct {
			at, want time.Time
		}{
			"clock went back during the run": {at: start.Add(-30 * time.Minute), want: start},
			"clock after the start":          {at: start.Add(time.Minute), want: start.Add(time.Minute)},
			"no end stays without one":       {},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				upsert(t, s, store.Task{Name: "backup", Schedule: "@hourly", RegisteredAt: t0, UpdatedAt: t0})
				id := mustClaim(t, s, store.Run{Task: "backup", Slot: start, Trigger: store.TriggerSchedule, StartedAt: start})
				code := 0
				if err := s.Finish(t.Context(), id, store.Outcome{Status: store.StatusSucceeded, ExitCode: &code, EndedAt: tc.at}); err != nil {
					t.Fatal(err)
				}
				r, err := s.Run(t.Context(), id)
				if err != nil {
					t.Fatal(err)
				}
				if !r.EndedAt.Equal(tc.want) {
					t.Errorf("EndedAt = %v, want %v (started %v)", r.EndedAt, tc.want, r.StartedAt)
				}
			})
		}
	})
}
