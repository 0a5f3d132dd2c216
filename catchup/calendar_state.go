package catchup

import (
	"time"

	"github.com/catchup/catchup/store"
)

// decidingRun is the run that says what became of a slot: the run that
// holds it against a claim (claimHolder: a success, whatever failed after
// it), else its latest run that reached an outcome (or is alive).
func decidingRun(runs []store.Run, stale map[int64]bool) (store.Run, bool) {
	if h, held := claimHolder(runs, stale); held {
		return h, true
	}
	var best store.Run
	found := false
	for _, r := range runs {
		if settles(r, MissedRule{}, stale) || r.Status == store.StatusFailed || r.Status == store.StatusTimeout || r.Status == "paused" {
			if !found || r.ID > best.ID {
				best, found = r, true
			}
		}
	}
	return best, found
}

// runState is the calendar state run r gives slot.
func runState(r store.Run, slot time.Time, stale map[int64]bool) string {
	switch r.Status {
	case store.StatusSucceeded:
		switch {
		case r.Trigger == store.TriggerReplay, r.Trigger == store.TriggerBackfill, r.Trigger == store.TriggerManual && !r.Slot.IsZero():
			return CellReplayed // a replay by scan or by backfill, or a run by hand (run --slot): never late
			// A run without a slot (a fire of a line no schedule was known
			// for yet) stands for the slot it started just after, as cron's
			// fire of it: ran, or late.
		case r.StartedAt.Sub(slot) > lateAfter:
			return CellLate
		}
		return CellRan
	case store.StatusFailed, store.StatusTimeout:
		return CellFailed
	case store.StatusExpired:
		return CellExpired
	case store.StatusRunning:
		if stale[r.ID] {
			return CellMissed
		}
		return CellRunning
	case store.StatusSkipped:
		return CellSkipped
	case "paused":
		return CellPaused
	}
	return CellMissed
}
