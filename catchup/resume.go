package catchup

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// ResumeRequest is one checked `catchup resume`.
type ResumeRequest struct {
	Task         string
	ReplayPaused bool // the slots recorded paused become missed again: scan replays them
}

// Resume ends a task's pause now. The slots of the pause stay settled as
// paused, unless req.ReplayPaused: then those recorded are deleted and the
// watermark lowered, so that scan replays every slot of the pause.
func Resume(ctx context.Context, st store.Store, m Machine, req ResumeRequest) (PauseResult, error) {
	if err := notesBefore(ctx, st, m, DefaultTolerance, "this resume"); err != nil { // the slots of its pause it records paused
		return PauseResult{}, err
	}
	t, err := activeTask(ctx, st, req.Task)
	if err != nil {
		return PauseResult{}, err
	}
	now := m.Now()
	if t.PausedAt.After(now.Add(clockSlack)) {
		// Paused while the clock was ahead: neither ended nor given back
		// here (which slots would be its?), but by reset-clock.
		return PauseResult{}, fmt.Errorf("task %s's pause begins at %s, later than now: the clock was ahead when it was paused; "+
			"catchup reset-clock %s brings it back", t.Name, rfc(t.PausedAt), t.Name)
	}
	if t.PausedAt.IsZero() {
		return PauseResult{}, fmt.Errorf("task %s is not paused, so there is nothing to resume: catchup ls shows which tasks are paused (catchup pause %s pauses it)", t.Name, t.Name)
	}
	if !Paused(t, now) && !req.ReplayPaused {
		// Ended by its --until: not "not paused" alone, which reads as if
		// it never was, nor without the way to its slots.
		return PauseResult{}, fmt.Errorf("task %s is not paused: its pause (%s) is over, its slots stay paused; "+
			"catchup resume %s --replay-paused gives them to scan to replay", t.Name, pauseSpan(t), t.Name)
	}
	var res PauseResult
	if req.ReplayPaused {
		// The slots of the pause that nothing recorded (no fire came, no
		// scan ran since) are recorded paused first, as the next scan
		// would have: given back with the others, each is missed with
		// the cause paused, not not-fired or host-down, once the pause
		// is forgotten. A crash in between leaves them paused, the pause
		// on: the resume's to run again.
		if _, err := recordEndedPause(ctx, st, m, t, time.Time{}); err != nil {
			return res, fmt.Errorf("record the slots of the pause since %s: %w", rfc(t.PausedAt), err)
		}
		// The pause is forgotten with its slots, in one transaction, so
		// that scan sees them as missed (keepResumedPause).
		if res.Unsettled, res.PruneFloor, err = st.UnsettlePaused(ctx, t.Name, t.PausedAt); err != nil {
			return res, err
		}
		res.PausedAt, res.PausedThrough = t.PausedAt, res.PruneFloor
		if u := t.PausedUntil; !u.IsZero() && u.Before(res.PruneFloor) {
			res.PausedThrough = u.Add(-time.Second)
		}
		t.PausedAt, t.PausedUntil = time.Time{}, time.Time{}
	} else {
		if t.PausedUntil.IsZero() || t.PausedUntil.After(now) {
			t.PausedUntil = now // the pause ends now; its slots stay paused
		}
		if err := st.SetPause(ctx, t.Name, t.PausedAt, t.PausedUntil); err != nil {
			return res, err
		}
	}
	res.Task = t
	if req.ReplayPaused && res.Unsettled > 0 {
		// Only a hint, read after the resume committed: a ledger that
		// fails it now leaves it out rather than failing a done resume
		// (run again, it would say the task is not paused).
		res.Beyond, _ = pausedBeyondWindow(ctx, st, m, t.Name)
	}
	return res, nil
}
