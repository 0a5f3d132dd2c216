package catchup

import (
	"context"
	"fmt"

	"github.com/catchup/catchup/store"
)

// reread is the holder h, running when read, as it stands now: a claim may
// have been given back meanwhile (a lock skip on its host, recorded
// skipped), and the notice must not call that record running. h itself
// when it is not running or cannot be read again.
func (l *lifecycle) reread(ctx context.Context, h store.Run) store.Run {
	if h.Status != store.StatusRunning {
		return h
	}
	runs, err := l.st.SlotRuns(ctx, h.Task, h.Slot, h.Slot, 0)
	if err != nil {
		return h
	}
	for _, r := range runs {
		if r.ID == h.ID {
			return r
		}
	}
	return h
}

// holderState says what the run holding a slot did.
func holderState(h store.Run) string {
	switch h.Status {
	case store.StatusSucceeded:
		return fmt.Sprintf("already succeeded (%s)", succeededRun(h))
	case store.StatusRunning:
		return fmt.Sprintf("is running (run %d on %s)", h.ID, h.Host)
	case store.StatusSkipped:
		if h.ExitCode != nil { // a lock skip (exit 75) or a duplicate (exit 0)
			return fmt.Sprintf("was claimed, then recorded skipped (run %d on %s, exit %d: it ran nothing)", h.ID, h.Host, *h.ExitCode)
		}
		return fmt.Sprintf("was skipped by a policy (run %d)", h.ID)
	case store.StatusInterrupted: // cut short (a stop, a power cut): it settles nothing
		return fmt.Sprintf("was claimed by run %d on %s, since interrupted: the next scan replays the slot", h.ID, h.Host)
	default:
		return fmt.Sprintf("already %s (run %d)", h.Status, h.ID)
	}
}

// succeededRun names the succeeded run that holds a slot: "run N", or, for
// one since pruned (a holder with no record left: no start; its id is 0 in a
// ledger that migrate filled), "its run was pruned", as backfill says it:
// `catchup show` has nothing to show of it.
func succeededRun(h store.Run) string {
	if h.StartedAt.IsZero() {
		return "its run was pruned"
	}
	return fmt.Sprintf("run %d", h.ID)
}
