package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// scanMaxReplays is scan's default --max-replays, which a resume
// --replay-paused tells the next scan's cut by.
const scanMaxReplays = 100

// BeyondWindow is what the next scan does with the slots a `resume
// --replay-paused` gave back, under the task's replay policy: those older
// than the task's catch-up window it records expired (Count, First, Last);
// of the others, those its policy or scan's default --max-replays drops
// (Dropped), those policy "none" leaves missed (Stay).
type BeyondWindow struct {
	Count       int
	First, Last time.Time
	Window      time.Duration
	// Policy is the task's replay policy ("all" when it has none).
	Policy string
	// Dropped are the slots of the pause, within the window, that the
	// next scan records expired too: dropped by policy "latest", or
	// beyond MaxReplays (policy "all").
	Dropped                   int
	DroppedFirst, DroppedLast time.Time
	MaxReplays                int
	// Latest (policy "latest") is the one missed slot the next scan
	// replays; LatestPaused when it is one of the pause's.
	Latest       time.Time
	LatestPaused bool
	// Stay (policy "none"): the slots of the pause within the window,
	// which the next scan leaves missed.
	Stay int
}

// pausedBeyondWindow reads, as ls does, the given-back slots of task and
// what the next scan (each task's own window and replay policy, scan's
// default --max-replays) does with them. It writes nothing; a task whose
// line scan retires or re-registers (every slot expiring) or whose clock is
// ahead has none.
func pausedBeyondWindow(ctx context.Context, st store.Store, m Machine, task string) (BeyondWindow, error) {
	rule := MissedRule{Tolerance: DefaultTolerance}
	all, err := List(ctx, st, m, ListRequest{Rule: rule, Tasks: []string{task}})
	if err != nil {
		return BeyondWindow{}, err
	}
	var b BeyondWindow
	for _, ts := range all {
		if ts.Task.Name != task || ts.Left != nil {
			continue
		}
		b.Window = catchupWindow(ts.Task, rule)
		b.Policy = ExplainRequest{}.policy(ts.Task)
		cut := m.Now().Add(-b.Window)
		paused := map[int64]bool{}
		for i, s := range ts.Missed {
			if ts.Causes[i] != CausePaused {
				continue
			}
			paused[s.Unix()] = true
			if !s.Before(cut) {
				continue
			}
			if b.Count == 0 {
				b.First = s
			}
			b.Count, b.Last = b.Count+1, s
		}
		b.pastWindow(ts.replayable, paused)
	}
	return b, nil
}

// pastWindow reads what the policy does with the replayable slots (oldest
// first) of which paused are the pause's.
func (b *BeyondWindow) pastWindow(replayable []time.Time, paused map[int64]bool) {
	var drop []time.Time
	switch b.Policy {
	case "coalesce": // folds, expires none
	case "none":
		for _, s := range replayable {
			if paused[s.Unix()] {
				b.Stay++
			}
		}
	default:
		b.MaxReplays = scanMaxReplays
		var replay []time.Time
		replay, drop, _ = plan(replayable, b.Policy, scanMaxReplays)
		if b.Policy == "latest" && len(replay) == 1 {
			b.Latest, b.LatestPaused = replay[0], paused[replay[0].Unix()]
		}
	}
	for _, s := range drop {
		if !paused[s.Unix()] {
			continue
		}
		if b.Dropped == 0 {
			b.DroppedFirst = s
		}
		b.Dropped, b.DroppedLast = b.Dropped+1, s
	}
}
