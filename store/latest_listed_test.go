package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestLatestListed: the latest run Tasks picks, and the latest slot
// LatestListedSlot finds, come from the same records: not a slot folded
// into a coalesced replay (skipped, no exit code, trigger replay, recorded
// after the replay's claim), not a paused record resume --replay-paused
// gave back. A fire's --on-busy skip (no exit code, trigger schedule) and
// a lock skip (exit 75) stay the latest; LatestSlot still counts every
// record.
func TestLatestListed(t *testing.T) {
	h := time.Hour
	cases := []struct {
		name     string
		after    []store.Run // recorded after the claim of the run at slot t0+3h, which then ends
		status   string      // the claimed run's outcome
		latest   int         // -1: the claimed run; else the index in after
		lastSlot time.Duration
	}{
		{name: "failed coalesced replay", status: store.StatusFailed, latest: -1, lastSlot: 3 * h, after: []store.Run{
			{Slot: t0.Add(h), Trigger: store.TriggerReplay, Status: store.StatusSkipped, Error: "coalesced into the replay of slot x"},
			{Slot: t0.Add(2 * h), Trigger: store.TriggerReplay, Status: store.StatusSkipped, Error: "coalesced into the replay of slot x"},
		}},
		{name: "succeeded coalesced replay", status: store.StatusSucceeded, latest: -1, lastSlot: 3 * h, after: []store.Run{
			{Slot: t0.Add(h), Trigger: store.TriggerReplay, Status: store.StatusSkipped, Error: "coalesced into the replay of slot x"},
		}},
		{name: "given-back paused record", status: store.StatusSucceeded, latest: -1, lastSlot: 3 * h, after: []store.Run{
			{Slot: t0.Add(4 * h), Trigger: store.TriggerSchedule, Status: store.StatusPaused, Reason: store.ReasonReplayPaused, Error: "the task was paused"},
		}},
		{name: "on-busy skip stays the latest", status: store.StatusFailed, latest: 0, lastSlot: 4 * h, after: []store.Run{
			{Slot: t0.Add(4 * h), Trigger: store.TriggerSchedule, Status: store.StatusSkipped, Error: "task is already running"},
		}},
		// A run of an older slot recorded after this one (a higher id): LAST
		// SLOT stays the latest slot, whatever the ids, and STATUS is its
		// run's, not the later record's (a backfill), as for a copy that
		// catchup migrate brought in: TestLatestPassesAnOlderSlot.
		{name: "older slot recorded later (a backfill)", status: store.StatusSucceeded, latest: -1, lastSlot: 3 * h, after: []store.Run{
			{Slot: t0.Add(h), Trigger: store.TriggerSchedule, Status: store.StatusFailed, ExitCode: intp(1)},
		}},
		{name: "lock skip of a replay stays the latest", status: store.StatusFailed, latest: 0, lastSlot: 4 * h, after: []store.Run{
			{Slot: t0.Add(4 * h), Trigger: store.TriggerReplay, Status: store.StatusSkipped, ExitCode: intp(75), Error: "task is already running"},
		}},
	}
	forEachBackend(t, func(t *testing.T, be backend) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				id := mustClaim(t, s, store.Run{Task: "job", Slot: t0.Add(3 * h), Trigger: store.TriggerReplay, StartedAt: t0.Add(3 * h)})
				want, maxSlot := id, t0.Add(3*h)
				for i, r := range tc.after {
					r.Task, r.Attempt, r.Host = "job", 1, "testhost"
					r.StartedAt = t0.Add(3*h + time.Second)
					r.EndedAt = r.StartedAt
					got, err := s.AddRun(ctx, r)
					if err != nil {
						t.Fatal(err)
					}
					if i == tc.latest {
						want = got
					}
					if r.Slot.After(maxSlot) {
						maxSlot = r.Slot
					}
				}
				finish(t, s, id, tc.status, t0.Add(3*h+time.Minute))
				all, err := s.Tasks(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(all) != 1 || all[0].Latest == nil || all[0].Latest.ID != want {
					t.Errorf("Tasks' latest = %+v, want run %d", all, want)
				}
				last, err := s.LatestListedSlot(ctx, "job")
				if err != nil || !last.Equal(t0.Add(tc.lastSlot)) {
					t.Errorf("LatestListedSlot = %v, %v; want %v", last, err, t0.Add(tc.lastSlot))
				}
				held, err := s.LatestSlot(ctx, "job")
				if err != nil || !held.Equal(maxSlot) {
					t.Errorf("LatestSlot = %v, %v; want %v (every record counts)", held, err, maxSlot)
				}
			})
		}
		none, err := be.fresh(t).LatestListedSlot(t.Context(), "nope")
		if err != nil || !none.IsZero() {
			t.Errorf("LatestListedSlot of a task without runs = %v, %v; want zero", none, err)
		}
	})
}
