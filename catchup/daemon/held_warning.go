package daemon

import (
	"time"

	"github.com/catchup/catchup/catchup"
)

// heldKey is a held slot and the run holding it.
type heldKey struct {
	slot int64
	run  int64
}

// heldNews reports whether the task's scan found a slot held by a run
// still running that its last scan did not (another slot, or another
// holder): its warning is said once, not at every rescan (about once a
// second on each replica while a long job runs). A scan that finds none
// forgets it, so that the next hold is said again.
func (d *Daemon) heldNews(task string, h catchup.HeldSlot) bool {
	return d.news(d.held, task, h)
}

// busyNews is heldNews for the slot whose replay found the task's lock
// held (TaskScan.Busy): said once per slot, not at each scan before a fire
// and each rescan while the lock stays held.
func (d *Daemon) busyNews(task string, h catchup.HeldSlot) bool {
	return d.news(d.busy, task, h)
}

// aheadNews is heldNews for the ledger's time of the task later than the
// clock (TaskScan.ClockAhead): said once per task and time, not at every
// rescan until the clock passes it (a container started while its node's
// clock was behind said it each second under --rescan 1s).
func (d *Daemon) aheadNews(task string, at time.Time) bool {
	return d.news(d.ahead, task, catchup.HeldSlot{Slot: at})
}

// news reports whether h is not what seen holds for task, and keeps it.
func (d *Daemon) news(seen map[string]heldKey, task string, h catchup.HeldSlot) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if h.Slot.IsZero() {
		delete(seen, task)
		return false
	}
	k := heldKey{slot: h.Slot.UnixNano(), run: h.RunID}
	if seen[task] == k {
		return false
	}
	seen[task] = k
	return true
}
