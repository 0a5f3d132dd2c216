package catchup

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// takenSinceRead returns, by slot (Unix seconds), the latest run of task
// recorded since a scan read it (id above read) that settles one of slots
// or is running: another run has that slot (a second scan's coalesced
// replay recorded it folded, and runs the gap). A skip with exit 0 (folds
// given back, a duplicate) settles nothing and is not one. On a ledger
// error it returns nil: the slots are then reported left, as when no run
// took them, which claims nothing that may be untrue. rule is the scan's:
// with --retry-failed a failed run settles nothing, and the next such scan
// replays its slot, so it is not taken.
func takenSinceRead(ctx context.Context, st store.Store, task string, slots []time.Time, read int64, rule MissedRule) map[int64]store.Run {
	if len(slots) == 0 {
		return nil
	}
	runs, err := st.SlotRuns(ctx, task, slots[0], slots[len(slots)-1], 0)
	if err != nil {
		return nil
	}
	want := make(map[int64]bool, len(slots))
	for _, s := range slots {
		want[s.Unix()] = true
	}
	taken := map[int64]store.Run{}
	for _, r := range runs {
		if r.ID <= read || r.Slot.IsZero() || !want[r.Slot.Unix()] || !settles(r, rule, nil) {
			continue
		}
		if o, ok := taken[r.Slot.Unix()]; !ok || r.ID > o.ID {
			taken[r.Slot.Unix()] = r
		}
	}
	return taken
}

// takenReason is the report's reason for a folded slot another run took.
func takenReason(r store.Run) string {
	what := r.Status
	if r.Status == store.StatusSkipped && r.Error != "" {
		what = r.Error
	}
	return fmt.Sprintf("another run's since this scan read the task (run %d, %s): not left for the next scan", r.ID, what)
}
