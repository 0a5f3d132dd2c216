package catchup

import (
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// stopsReplays reports whether replay a of task's slot (of schedule
// sched), which is not the last one planned, ends the task's replays in
// this scan: left later missed slots then wait for the next scan, so
// that none runs before this one; ts says so (Left, Busy or Held, and a
// warning).
func (ts *TaskScan) stopsReplays(a SlotAction, task, host string, slot time.Time, sched *schedule.Schedule, left int) bool {
	shown := func() string { return formatSlot(slot, sched) }
	switch {
	case a.lockSkipped:
		// The task is running (a cron fire, another host's scan), or the
		// ledger went out of reach before the replay could start: its
		// later slots wait for the next scan, so that none runs before
		// this one, which stays missed.
		ts.Left = left
		why := fmt.Sprintf("task %s is running (its lock is held)", task)
		switch {
		case a.rowLocked:
			why = fmt.Sprintf("task %s: the replay of slot %s reached the ledger, but another session held the task's row "+
				"past the lock timeout, not run", task, shown())
		case a.unreachable:
			why = fmt.Sprintf("task %s: the replay of slot %s could not reach the ledger, not run", task, shown())
		case strings.HasPrefix(a.Reason, reasonGapHeld):
			why = fmt.Sprintf("task %s: the replay of slot %s was a %s", task, shown(), a.Reason)
		}
		ts.Busy = HeldSlot{Slot: slot, Warning: fmt.Sprintf("%s: its later missed slots (%d) "+
			"wait for the next scan, so that none runs before slot %s", why, ts.Left, shown())}
		ts.Warnings = append(ts.Warnings, ts.Busy.Warning)
	case a.held:
		// Its slot is claimed by a run still running (another host's
		// replay or fire), which may yet give the claim back (a lock
		// skip): that host has the task's backlog now. Or its replay
		// left it missed (a crontab line whose run gave back the
		// claim, ran nothing, or recorded nowhere). Either way its
		// later slots wait for the next scan, so that none runs
		// before this one.
		ts.Left = left
		var holder store.Run
		if a.holder != nil {
			holder = *a.holder
		}
		if holder.ID == 0 {
			holder.ID = a.RunID // only its id is known
		}
		w := heldSlotWarning(task, shown(), holder, host, ts.Left)
		if !a.running {
			w = stillMissedWarning(task, shown(), ts.Left)
		} else {
			ts.Held = HeldSlot{Slot: slot, RunID: a.RunID, Warning: w}
		}
		ts.Warnings = append(ts.Warnings, w)
	case a.ExitCode == ExitInternal:
		// catchup itself could not start the replay (above all: its
		// claim could not be recorded); the later slots would fare no
		// better, and must not run before this one.
		ts.Left = left
		ts.Warnings = append(ts.Warnings, fmt.Sprintf("task %s: the replay of slot %s did not start (exit %d); "+
			"its later missed slots wait for the next scan", task, shown(), ExitInternal))
	default:
		return false
	}
	return true
}
