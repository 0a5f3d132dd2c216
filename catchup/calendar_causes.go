package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// calendarReadFrom is where the calendar reads task t's runs from: the
// calendar's first day (from), or where the missed-slot rule starts to
// look (missedFrom) when that is earlier, so that its missed cells are
// judged from the runs ls's are.
func calendarReadFrom(from time.Time, t store.Task) time.Time {
	if mf := missedFrom(t); mf.Before(from) {
		return mf
	}
	return from
}

// addCauses gives each missed cell of row its cause, by the rule ls, scan,
// metrics and explain use (slotCause), from the task's uptime (taskUptime:
// the same hosts for every reader). runs are the task's runs as the row read them;
// byslot and bySlot index them.
func (c *calendarReader) addCauses(ctx context.Context, t store.Task, row *CalendarRow, runs []store.Run,
	byslot map[int64][]store.Run, bySlot map[int64]store.Run) error {
	var u *uptime
	for i := range row.Slots {
		cell := &row.Slots[i]
		if cell.State != CellMissed {
			continue
		}
		if u == nil {
			if !c.firesRead {
				// Every task's first fires in one read, and the
				// boots of their hosts in one more.
				c.firesRead = true
				if err := c.boots.prefetchFires(ctx, c.scheduled); err != nil {
					return err
				}
				if err := c.boots.prefetch(ctx, c.boots.hostsOfTasks(c.scheduled)); err != nil {
					return err
				}
			}
			got, err := c.boots.taskUptime(ctx, t.Name, firesOf(runs))
			if err != nil {
				return err
			}
			u = &got
		}
		k := cell.Slot.Unix()
		sl, has := bySlot[k]
		cell.Cause = slotCause(cell.Slot, slotRecords{named: byslot[k], slotless: sl, has: has}, c.stale, *u)
		if c.lost != nil && c.lost.Holds(cell.Slot) {
			cell.Cause = CauseWalLost // it may have run (wal_lost.go)
		}
	}
	return nil
}
