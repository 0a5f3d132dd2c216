package daemon

import "github.com/catchup/catchup/catchup"

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
	d.mu.Lock()
	defer d.mu.Unlock()
	if h.Slot.IsZero() {
		delete(d.held, task)
		return false
	}
	k := heldKey{slot: h.Slot.UnixNano(), run: h.RunID}
	if d.held[task] == k {
		return false
	}
	d.held[task] = k
	return true
}
