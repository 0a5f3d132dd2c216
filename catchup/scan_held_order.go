package catchup

import (
	"fmt"
	"sort"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
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
func (ts *TaskScan) withholdAfterHeld(task, host string, sched *schedule.Schedule, replay []time.Time,
	spans map[int64]replaySpan, win window) ([]time.Time, int) {
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
	slots := n // and the slots folded into them (coalesce), left with them
	for _, s := range replay[cut:] {
		slots += len(spans[s.Unix()].fold)
	}
	w := heldSlotWarning(task, formatSlot(h, sched), win.firstHeldBy, host, slots)
	ts.Warnings = append(ts.Warnings, w)
	ts.Held = HeldSlot{Slot: h, RunID: win.firstHeldBy.ID, Warning: w}
	return replay[:cut], n
}

// leaveFoldsAfterHeld: in a dry run, the slots folded (coalesce) into the
// replays withholdAfterHeld withheld are left with them, as settleFolds
// leaves them in the real scan, not skipped: their "would skip" actions,
// the last ones appended (foldAt), go.
func (ts *TaskScan) leaveFoldsAfterHeld(gaps []replaySpan, foldAt []int, win window) {
	for i, g := range gaps {
		if win.firstHeld.IsZero() || !g.slot.After(win.firstHeld) {
			continue
		}
		for _, left := range gaps[i:] {
			ts.Skipped -= len(left.fold)
			ts.Left += len(left.fold)
		}
		ts.Actions = ts.Actions[:foldAt[i]]
		return
	}
}

// heldSlotWarning says why a task's later slots wait: its slot was found
// claimed by run holder (ID 0 when a crontab line's replay does not tell
// it), still running; whose run it is (host is this host's name): another
// scan's replay on this host, with its pid, is not another host's.
func heldSlotWarning(task, slot string, holder store.Run, host string, left int) string {
	by := "another run, still running (a long job, or another host's replay or fire)"
	switch {
	case holder.ID == 0:
	case holder.Host == host:
		pid := ""
		if holder.PID > 0 {
			pid = fmt.Sprintf(", pid %d", holder.PID)
		}
		by = fmt.Sprintf("run %d (%s on this host%s), still running", holder.ID, triggerNoun(holder.Trigger), pid)
	case holder.Host != "":
		by = fmt.Sprintf("run %d (%s on host %s), still running", holder.ID, triggerNoun(holder.Trigger), holder.Host)
	default:
		by = fmt.Sprintf("run %d, still running (a long job, or another host's replay or fire)", holder.ID)
	}
	return fmt.Sprintf("task %s: slot %s is held by %s: "+
		"its later missed slots (%d) wait for the next scan, so that none runs before it", task, slot, by, left)
}

// triggerNoun names a run by its trigger, for a sentence: "a replay".
func triggerNoun(trigger string) string {
	switch trigger {
	case store.TriggerSchedule:
		return "a fire"
	case store.TriggerReplay:
		return "a replay"
	case store.TriggerBackfill:
		return "a backfill"
	case store.TriggerRetry:
		return "a retry"
	case store.TriggerManual:
		return "a run by hand"
	}
	return "a run"
}

// stillMissedWarning says why a task's later slots wait: the replay of its
// slot left it missed (its reason is in the slot's report line).
func stillMissedWarning(task, slot string, left int) string {
	return fmt.Sprintf("task %s: slot %s is still missed after its replay: "+
		"its later missed slots (%d) wait for the next scan, so that none runs before it", task, slot, left)
}
