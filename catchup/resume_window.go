package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// BeyondWindow is what the next scan does not replay of the slots a
// `resume --replay-paused` gave back: those older than the task's
// catch-up window, which it records expired instead.
type BeyondWindow struct {
	Count       int
	First, Last time.Time
	Window      time.Duration
}

// pausedBeyondWindow reads, as ls does, the given-back slots of task that
// the next scan (each task's own window) records expired rather than
// replays. It writes nothing; a task whose line scan retires or
// re-registers (every slot expiring) or whose clock is ahead has none.
func pausedBeyondWindow(ctx context.Context, st store.Store, m Machine, task string) (BeyondWindow, error) {
	rule := MissedRule{Tolerance: DefaultTolerance}
	all, err := List(ctx, st, m, ListRequest{Rule: rule})
	if err != nil {
		return BeyondWindow{}, err
	}
	var b BeyondWindow
	for _, ts := range all {
		if ts.Task.Name != task || ts.Left != nil {
			continue
		}
		b.Window = catchupWindow(ts.Task, rule)
		cut := m.Now().Add(-b.Window)
		for i, s := range ts.Missed {
			if ts.Causes[i] != CausePaused || !s.Before(cut) {
				continue
			}
			if b.Count == 0 {
				b.First = s
			}
			b.Count, b.Last = b.Count+1, s
		}
	}
	return b, nil
}
