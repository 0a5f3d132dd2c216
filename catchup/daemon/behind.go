package daemon

import (
	"fmt"
	"time"
)

// sayBehind logs the slots from first to now that the task's loop skipped:
// it woke with them past (the daemon frozen, a VM resumed, the wall clock
// stepped ahead), fired the one before them late, and leaves them to its
// scan, which replays them at once by the task's --replay.
func (d *Daemon) sayBehind(t Task, first, now time.Time) {
	last, ok := t.Sched.Prev(now)
	if !ok || last.Before(first) {
		last = first
	}
	span, them := "slot "+first.Format(time.RFC3339), "it"
	if !last.Equal(first) {
		span, them = fmt.Sprintf("slots %s to %s", first.Format(time.RFC3339), last.Format(time.RFC3339)), "them"
	}
	d.cfg.Log.Warn(fmt.Sprintf("%s came while the daemon could not fire %s (frozen, or the clock stepped ahead): "+
		"not fired; its scan takes %s now (--replay %s)", span, them, them, t.Def.Replay), "event", "warning", "task", t.Def.Name)
}
