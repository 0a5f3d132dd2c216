package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// The expired records a long outage leaves (prune itself records them for
// the missed slots before its cut) never push out of --keep the runs that
// ran: Keep is counted a third time among the records that ran (not
// expired, not paused, not a duplicate's), so that the last success stays
// in history (opsday-prune-expired-pushes-out-runs).
func TestPruneKeepsTheRunsThatRanThroughAnOutage(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		tests := map[string]struct {
			keep, expired int
			want          int64 // deleted, as a check of the model
			kept          int   // runs that ran still there
		}{
			"keep 1, a long outage":    {keep: 1, expired: 6, want: 6 + 2 - 1, kept: 1},
			"keep 3, a long outage":    {keep: 3, expired: 6, want: 3, kept: 3},
			"keep 3, a short outage":   {keep: 3, expired: 1, want: 0, kept: 3},
			"keep 2, an outage of two": {keep: 2, expired: 2, want: 1, kept: 2},
			"keep 1, an outage of one": {keep: 1, expired: 1, want: 2, kept: 1},
			"keep 2, no outage at all": {keep: 2, want: 1, kept: 2},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				// Task t: slots 0-2 ran (the last one succeeded), then an
				// outage: slots 3.. recorded expired (max-age).
				var ran []int64
				for i := range 3 {
					id := mustClaim(t, s, store.Run{Task: "t", Slot: hour(i), Trigger: store.TriggerSchedule, StartedAt: hour(i)})
					finish(t, s, id, []string{store.StatusFailed, store.StatusFailed, store.StatusSucceeded}[i], hour(i).Add(time.Minute))
					ran = append(ran, id)
				}
				for i := range tc.expired {
					at := hour(3 + i)
					if _, err := s.AddRun(ctx, store.Run{Task: "t", Slot: at, Trigger: store.TriggerReplay, Status: store.StatusExpired,
						Reason: "max-age", Attempt: 1, StartedAt: at, EndedAt: at, Error: "older than its catch-up window"}); err != nil {
						t.Fatal(err)
					}
				}
				before, want := pruneByTheRule(t, s, hour(100), tc.keep, tc.want)
				gone := deletedSince(t, s, before)
				if !slices.Equal(gone, want) {
					t.Errorf("Prune deleted %v, want %v", gone, want)
				}
				after := allRuns(t, s)
				for _, id := range ran[len(ran)-tc.kept:] {
					if _, ok := after[id]; !ok {
						t.Errorf("Prune --keep %d deleted run %d (%s), one of the newest %d that ran: the expired records pushed it out",
							tc.keep, id, before[id].Status, tc.keep)
					}
				}
			})
		}
	})
}
