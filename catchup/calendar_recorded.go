package catchup

import (
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// recordedCell is a slot the task's schedule does not have but its ledger
// holds records of: a slot of the schedule or zone it had before it last
// changed. It shows what its records say, as history, ls and metrics read
// them (a run, or an expiry a schedule change recorded); a slot still owed
// to the old schedule (owed: owedToOldSchedule, above the watermark: a run
// of it cut short, its paused record given back) is missed, as ls,
// metrics and scan count it, until scan records it expired; another whose
// records decide nothing (a fire that died before the change) is none:
// the new schedule counts from the change, and scan replays no slot of
// the old one.
func recordedCell(slot time.Time, runs []store.Run, stale map[int64]bool, owed bool) CalendarSlot {
	c := CalendarSlot{Slot: slot, State: CellNone, OldSchedule: true}
	if owed {
		c.State = CellMissed
		return c
	}
	r, ok := decidingRun(runs, stale)
	if !ok {
		return c
	}
	if c.State = runState(r, slot, stale); c.State == CellMissed {
		c.State = CellNone
		return c
	}
	c.RunID = r.ID
	return c
}

// slotKeys is the slots (Unix seconds) that have runs in a or b, in order.
func slotKeys(a map[int64][]store.Run, b map[int64]store.Run) []int64 {
	keys := make([]int64, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, dup := a[k]; !dup {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// indexRuns splits runs into those naming their slot (by slot) and the
// slotless ones (by start, as SlotRuns returns them).
func indexRuns(runs []store.Run) (map[int64][]store.Run, []store.Run) {
	byslot := map[int64][]store.Run{}
	var slotless []store.Run
	for _, r := range runs {
		if r.Slot.IsZero() {
			if standsForASlot(r) {
				slotless = append(slotless, r)
			}
			continue
		}
		byslot[r.Slot.Unix()] = append(byslot[r.Slot.Unix()], r)
	}
	return byslot, slotless
}
