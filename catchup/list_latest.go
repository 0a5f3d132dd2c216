package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// listCounts reads the run counts List is asked for, at once for every
// task, and returns each task's (nil: none asked).
func listCounts(ctx context.Context, st store.Store, want ListCounts) (func(task string) map[string]int64, error) {
	switch want {
	case CountsAll:
		all, err := st.StatusCounts(ctx)
		if err != nil {
			return nil, err
		}
		return func(task string) map[string]int64 { return all[task] }, nil
	case CountsExpired:
		expired, err := st.StatusCountByTask(ctx, store.StatusExpired)
		if err != nil {
			return nil, err
		}
		return func(task string) map[string]int64 { return map[string]int64{store.StatusExpired: expired[task]} }, nil
	}
	return func(string) map[string]int64 { return nil }, nil
}

// latestListed sets each task's LastSlot, the latest slot of the records
// its Latest is picked from, and, for a task whose pause is over, its
// Latest too (pastPause): out[i] is all[i]'s, held every task's latest
// slot of any record. The tasks whose latest run does not hold their
// latest slot have theirs read, and those past a pause their latest run
// that ran, in one read each for all of them.
func latestListed(ctx context.Context, st store.Store, out []TaskStatus, all []store.TaskSummary,
	held map[string]time.Time, stale map[int64]bool, notes *pendingNotes) error {
	var look, pastPause []string
	for i, s := range all {
		switch h := held[s.Task.Name]; {
		case s.Latest != nil && s.Latest.Slot.Equal(h): // the latest run holds the latest slot: no need to look
			out[i].LastSlot = h
		default:
			look = append(look, s.Task.Name)
		}
		if out[i].pausedRecordStands() {
			pastPause = append(pastPause, s.Task.Name)
		}
	}
	listed, err := st.LatestListedSlots(ctx, look)
	if err != nil {
		return err
	}
	ran, err := st.LatestRans(ctx, pastPause)
	if err != nil {
		return err
	}
	for i, s := range all {
		if t := listed[s.Task.Name]; !t.IsZero() {
			out[i].LastSlot = t
		}
		if out[i].pausedRecordStands() {
			out[i].pastPause(ran[s.Task.Name], stale, notes)
		}
	}
	return nil
}

// pausedRecordStands reports whether the latest run is the record of a
// fire a pause kept from running, while the task's pause is over.
func (ts *TaskStatus) pausedRecordStands() bool {
	return ts.Latest != nil && ts.Latest.Status == store.StatusPaused && !ts.Paused
}

// pastPause makes the latest run of a task whose pause is over (a plain
// resume, an --until run out) r, the latest that ran, not the record of a
// fire the pause kept from running, which would still say paused;
// LastSlot is that run's slot. While the pause lasts, its record stays the
// latest.
func (ts *TaskStatus) pastPause(r *store.Run, stale map[int64]bool, notes *pendingNotes) {
	ts.Latest = deadAsInterrupted(notes.noted(r), stale)
	switch {
	case r == nil:
		ts.LastSlot = time.Time{}
	case !r.Slot.IsZero():
		ts.LastSlot = r.Slot
	}
}

// cutInDelay makes the latest run of each task whose latest record is a
// retry found dead during its delay (deadAsInterrupted reads it cut in its
// delay, as scan records it, and Tasks then leaves it out) the attempt it
// retried, whose failure stands (R10): ls says failed before the scan as
// after it.
func cutInDelay(ctx context.Context, st store.Store, out []TaskStatus) error {
	for i := range out {
		r := out[i].Latest
		if r == nil || r.Status != store.StatusInterrupted || r.Reason != store.ReasonRetryCut {
			continue
		}
		runs, err := st.History(ctx, store.HistoryFilter{Task: r.Task, Limit: 50})
		if err != nil {
			return err
		}
		for _, p := range runs {
			if p.ID < r.ID && p.Attempt == r.Attempt-1 && p.Slot.Equal(r.Slot) {
				out[i].Latest = &p
				break
			}
		}
	}
	return nil
}
