package catchup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// DefaultBackfillMaxSlots is backfill's --max-slots: the most slots of a
// task one backfill plans. A range wider than that is refused before
// anything runs: a typo in --from (2016 for 2026) would otherwise run
// millions of slots with no question asked, after minutes of planning.
const DefaultBackfillMaxSlots = 10000

// backfillCountMax bounds how far a refused range is counted, for its
// message: past it, "more than" (a range of centuries is not counted to
// its end).
const backfillCountMax = 1_000_000

// ErrPlanStopped: a signal stopped the backfill while it planned, before
// any slot ran.
var ErrPlanStopped = errors.New("stopped while planning")

// maxSlots is req's limit, the default for 0.
func (req BackfillRequest) maxSlots() int {
	if req.MaxSlots <= 0 {
		return DefaultBackfillMaxSlots
	}
	return req.MaxSlots
}

// checkRangeSize refuses a range that holds more than the request's
// MaxSlots slots of the task's schedule. It counts without keeping the
// slots, and stops at ctx's end (ErrPlanStopped).
func checkRangeSize(ctx context.Context, task string, sched *schedule.Schedule, req BackfillRequest) error {
	limit := req.maxSlots()
	n, stopped := countSlots(ctx, sched, req.From, req.To, limit+1)
	if stopped {
		return ErrPlanStopped
	}
	if n <= limit {
		return nil
	}
	bound := max(limit, backfillCountMax) // counted this far for the message
	if bound > limit {
		if n, stopped = countSlots(ctx, sched, req.From, req.To, bound+1); stopped {
			return ErrPlanStopped
		}
	}
	count := fmt.Sprintf("%d slots", n)
	if n > bound {
		count = fmt.Sprintf("more than %d slots", bound)
	}
	return fmt.Errorf("backfill %s: %s from %s to %s, over --max-slots %d: narrow --from and --to, or raise --max-slots to plan them all",
		task, count, req.From.UTC().Format(time.RFC3339), req.To.UTC().Format(time.RFC3339), limit)
}

// countSlots counts the schedule's slots in [from, to], up to upTo; stopped
// when ctx ended first.
func countSlots(ctx context.Context, sched *schedule.Schedule, from, to time.Time, upTo int) (n int, stopped bool) {
	sched.Slots(from.Add(-time.Second), to, func(time.Time) bool {
		n++
		if n%1024 == 0 && ctx.Err() != nil {
			stopped = true
			return false
		}
		return n < upTo
	})
	return n, stopped || ctx.Err() != nil
}
