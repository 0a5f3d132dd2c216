package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestSlotRunsOf: SlotRunsOf passes each range, in order and once, what
// SlotRuns returns for it: the same runs in the same order, at the
// bounds too (a sub-second from, the grace of slotless runs); a range
// with no runs gets none; a task may come twice.
func TestSlotRunsOf(t *testing.T) {
	h := time.Hour
	ranges := map[string]store.SlotRange{
		"busy, all":                {Task: "busy", From: t0.Add(-4 * h), To: t0.Add(60 * h)},
		"busy, a window":           {Task: "busy", From: t0.Add(3 * h), To: t0.Add(7 * h)},
		"busy, sub-second from":    {Task: "busy", From: t0.Add(3*h + 250*time.Millisecond), To: t0.Add(7*h + 500*time.Millisecond)},
		"busy, slotless at bounds": {Task: "busy", From: t0.Add(-h + 250*time.Millisecond), To: t0.Add(48*h - 10*time.Minute)},
		"slotless":                 {Task: "slotless", From: t0, To: t0.Add(h)},
		"paused":                   {Task: "paused", From: t0.Add(-h), To: t0.Add(2 * h)},
		"running":                  {Task: "running", From: t0, To: t0.Add(2 * h)},
		"never":                    {Task: "never", From: t0, To: t0.Add(2 * h)},
		"unknown":                  {Task: "unknown", From: t0, To: t0.Add(2 * h)},
		"empty range":              {Task: "busy", From: t0.Add(-48 * h), To: t0.Add(-47 * h)},
	}
	// In an order that is neither the names' nor the tasks', with gaps
	// (ranges without runs) between, at the start and at the end.
	order := []string{"never", "busy, a window", "unknown", "slotless", "empty range", "busy, all",
		"busy, sub-second from", "paused", "running", "busy, slotless at bounds", "never"}
	const grace = 10 * time.Minute
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		batchLedger(t, s)
		ctx := context.Background()
		var asked []store.SlotRange
		for _, name := range order {
			asked = append(asked, ranges[name])
		}
		next := 0
		err := s.SlotRunsOf(ctx, asked, grace, func(i int, got []store.Run) error {
			if i != next {
				t.Errorf("range %d passed after range %d, want %d", i, next-1, next)
			}
			next = i + 1
			r := asked[i]
			want, err := s.SlotRuns(ctx, r.Task, r.From, r.To, grace)
			if err != nil {
				return err
			}
			if len(got) != len(want) {
				t.Errorf("range %q: %v, SlotRuns %v", order[i], ids(got), ids(want))
				return nil
			}
			for k := range got {
				if !sameRun(got[k], want[k]) {
					t.Errorf("range %q, run %d:\n%+v\nSlotRuns\n%+v", order[i], k, got[k], want[k])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if next != len(asked) {
			t.Errorf("%d ranges passed, want %d", next, len(asked))
		}
		if n, err := runsIn(ctx, s, asked[:2], grace); err != nil || n == 0 {
			t.Errorf("the ranges hold %d runs (%v): the test reads nothing", n, err)
		}

		t.Run("an error of fn ends the read", func(t *testing.T) {
			stop := errors.New("stop")
			calls := 0
			err := s.SlotRunsOf(ctx, asked, grace, func(i int, _ []store.Run) error {
				calls++
				if i == 1 {
					return stop
				}
				return nil
			})
			if err != stop || calls != 2 {
				t.Errorf("SlotRunsOf = %v after %d calls; want fn's own error after 2", err, calls)
			}
			// The ledger reads on after a read cut short.
			if _, err := s.LatestSlots(ctx); err != nil {
				t.Errorf("LatestSlots after a read cut short: %v", err)
			}
		})
		t.Run("no ranges", func(t *testing.T) {
			err := s.SlotRunsOf(ctx, nil, grace, func(int, []store.Run) error {
				t.Error("fn called for no range")
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	})
}

// runsIn counts the runs SlotRuns returns for ranges.
func runsIn(ctx context.Context, s store.Store, ranges []store.SlotRange, grace time.Duration) (int, error) {
	n := 0
	for _, r := range ranges {
		runs, err := s.SlotRuns(ctx, r.Task, r.From, r.To, grace)
		if err != nil {
			return 0, err
		}
		n += len(runs)
	}
	return n, nil
}
