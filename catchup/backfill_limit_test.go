package catchup

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestBackfillRangeLimit: a backfill plans at most MaxSlots slots of a
// task; a wider range is refused before anything runs, a dry run too,
// with the count (up to a bound) and the flag. 0 is the default.
func TestBackfillRangeLimit(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		from, to string
		max      int
		dry      bool
		wantErr  string // "" = planned
	}{
		"within the default":  {from: "2026-02-24T00:00:00Z", to: "2026-03-01T09:00:00Z", dry: true},
		"over the default":    {from: "2024-01-01T00:00:00Z", to: "2026-03-01T09:00:00Z", dry: true, wantErr: "backfill job: 18970 slots from 2024-01-01T00:00:00Z to 2026-03-01T09:00:00Z, over --max-slots 10000: narrow --from and --to, or raise --max-slots to plan them all"},
		"over, not a dry run": {from: "2024-01-01T00:00:00Z", to: "2026-03-01T09:00:00Z", wantErr: "18970 slots"},
		"at a raised limit":   {from: "2024-01-01T00:00:00Z", to: "2026-03-01T09:00:00Z", max: 18970, dry: true},
		"over a lowered one":  {from: "2026-03-01T00:00:00Z", to: "2026-03-01T09:00:00Z", max: 9, dry: true, wantErr: "10 slots from"},
		"beyond the count":    {from: "1826-01-01T00:00:00Z", to: "2026-03-01T09:00:00Z", max: 5, dry: true, wantErr: "more than 1000000 slots from 1826-01-01T00:00:00Z"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			if res := f.run(t, f.request(t)); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			f.now = mustTime(t, "2026-03-01T09:30:00Z")
			reps, err := Backfill(context.Background(), f.st, f.m, BackfillRequest{Tasks: []string{"job"},
				From: mustTime(t, tc.from), To: mustTime(t, tc.to), Only: "all", Order: "oldest", Concurrency: 1,
				DryRun: tc.dry, MaxSlots: tc.max})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Backfill: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Backfill: error %v, want one with %q", err, tc.wantErr)
			case tc.wantErr != "" && len(reps) != 0:
				t.Errorf("refused, but planned %+v", reps)
			}
			if got := f.job.runs(t); len(got) != 1 {
				t.Errorf("the job ran %d times, want only the registering fire: %v", len(got), got)
			}
		})
	}
}

// TestBackfillPlanningStops: a signal (ctx) while a backfill plans a range
// that would take minutes to count stops it promptly: ErrPlanStopped,
// nothing run.
func TestBackfillPlanningStops(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	req := f.request(t)
	req.Schedule = mustSchedule(t, "* * * * *", "UTC")
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T09:30:00Z")
	ctx, cancel := context.WithCancel(context.Background())
	stopped := time.AfterFunc(100*time.Millisecond, cancel)
	defer stopped.Stop()
	done := make(chan error, 1)
	go func() {
		_, err := Backfill(ctx, f.st, f.m, BackfillRequest{Tasks: []string{"job"},
			From: mustTime(t, "1000-01-01T00:00:00Z"), To: mustTime(t, "2026-03-01T09:00:00Z"), Only: "all",
			Order: "oldest", Concurrency: 1, MaxSlots: 2_000_000_000})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrPlanStopped) {
			t.Errorf("Backfill: %v, want ErrPlanStopped", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Backfill did not stop within 30s of its context's end (counting the range to its end takes minutes)")
	}
	if got := f.job.runs(t); len(got) != 1 {
		t.Errorf("the job ran %d times, want only the registering fire: %v", len(got), got)
	}
}

// TestBackfillSlotsStopsAtCtxEnd: listing a range's slots (raised
// --max-slots) stops at ctx's end, after at most a batch of slots.
func TestBackfillSlotsStopsAtCtxEnd(t *testing.T) {
	t.Parallel()
	st, _ := testLedger(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs, err := backfillSlots(ctx, st, store.Task{Name: "job"}, mustSchedule(t, "* * * * *", "UTC"), BackfillRequest{
		From: mustTime(t, "2016-01-01T00:00:00Z"), To: mustTime(t, "2026-01-01T00:00:00Z"), Only: "all", MaxSlots: 100_000_000})
	if !errors.Is(err, ErrPlanStopped) || len(rs.all) > 1024 {
		t.Errorf("backfillSlots: %v after %d slots, want ErrPlanStopped within 1024", err, len(rs.all))
	}
}
