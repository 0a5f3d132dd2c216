package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// The paused records a long pause leaves (fires it kept from running) never
// push out of --keep the runs ls shows once the pause is over (LatestRan):
// Keep counts the latest as Tasks does (the pause may still last) and, on
// their own, the runs LatestRan picks from; a record goes only when both
// leave it.
func TestPruneKeepsTheLatestRanThroughAPause(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		tests := map[string]struct {
			keep, paused int
			want         int64 // deleted, as a check of the model
		}{
			"keep 1, a long pause":    {keep: 1, paused: 6, want: 6 + 2 - 1},
			"keep 3, a long pause":    {keep: 3, paused: 6, want: 3},
			"keep 3, a short pause":   {keep: 3, paused: 1, want: 0},
			"keep 5, a long pause":    {keep: 5, paused: 6, want: 1},
			"keep more than any":      {keep: 20, paused: 6},
			"keep 2, a pause of two":  {keep: 2, paused: 2, want: 1},
			"keep 1, a pause of one":  {keep: 1, paused: 1, want: 2},
			"keep 2, no pause at all": {keep: 2, want: 1},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				// Task t: slots 0-2 ran (the last one succeeded), then a
				// pause: its fires recorded slots 3.. paused.
				var last int64
				for i := range 3 {
					last = mustClaim(t, s, store.Run{Task: "t", Slot: hour(i), Trigger: store.TriggerSchedule, StartedAt: hour(i)})
					finish(t, s, last, []string{store.StatusFailed, store.StatusFailed, store.StatusSucceeded}[i], hour(i).Add(time.Minute))
				}
				for i := range tc.paused {
					at := hour(3 + i)
					if _, err := s.AddRun(ctx, store.Run{Task: "t", Slot: at, Trigger: store.TriggerSchedule, Status: store.StatusPaused,
						Attempt: 1, StartedAt: at, EndedAt: at, Error: "the task was paused"}); err != nil {
						t.Fatal(err)
					}
				}
				before, want := pruneByTheRule(t, s, hour(100), tc.keep, tc.want)
				gone := deletedSince(t, s, before)
				if !slices.Equal(gone, want) {
					t.Errorf("Prune deleted %v, want %v", gone, want)
				}
				ran, err := s.LatestRan(ctx, "t")
				if err != nil || ran == nil || ran.ID != last || ran.Status != store.StatusSucceeded {
					t.Errorf("after the prune, LatestRan = %+v, %v; want the succeeded run %d (what ls shows once the pause is over)", ran, err, last)
				}
			})
		}
	})
}
