package catchup

import (
	"fmt"
	"sort"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// A task's slots are replayed oldest first, and none jumps the queue: a
// slot held by a run still running (another host's replay or fire) may yet
// be given back as a lock skip, and left missed for the next scan, so no
// slot after it is replayed in this scan. The other host has the task's
// backlog now; the next scan continues. A slot settled by a finished run
// holds nothing back.

// withholdAfterHeld drops from replay (in slot order) the slots after the
// earliest slot a live run held, running, when scan read the task, and says
// so in a warning; it returns the replays kept and how many it withheld
// (counted left). The replays of the slots before it go ahead.
func (ts *TaskScan) withholdAfterHeld(task string, sched *schedule.Schedule, replay []time.Time, win window) ([]time.Time, int) {
	h := win.firstHeld
	if h.IsZero() {
		return replay, 0
	}
	cut := sort.Search(len(replay), func(i int) bool { return replay[i].After(h) })
	n := len(replay) - cut
	if n == 0 {
		return replay, 0
	}
	ts.Left += n
	w := heldSlotWarning(task, formatSlot(h, sched), win.firstHeldBy, n)
	ts.Warnings = append(ts.Warnings, w)
	ts.Held = HeldSlot{Slot: h, RunID: win.firstHeldBy, Warning: w}
	return replay[:cut], n
}

// heldSlotWarning says why a task's later slots wait: its slot was found
// claimed by run id (0 when a crontab line's replay does not tell it),
// still running.
func heldSlotWarning(task, slot string, id int64, left int) string {
	by := "another run"
	if id != 0 {
		by = fmt.Sprintf("run %d", id)
	}
	return fmt.Sprintf("task %s: slot %s is held by %s, still running (a long job, or another host's replay or fire): "+
		"its later missed slots (%d) wait for the next scan, so that none runs before it", task, slot, by, left)
}

// stillMissedWarning says why a task's later slots wait: the replay of its
// slot left it missed (its reason is in the slot's report line).
func stillMissedWarning(task, slot string, left int) string {
	return fmt.Sprintf("task %s: slot %s is still missed after its replay: "+
		"its later missed slots (%d) wait for the next scan, so that none runs before it", task, slot, left)
}
