package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// calendarReadFrom is where the calendar reads task t's runs from: the
// calendar's first day (from), or where the missed-slot rule starts to
// look (missedFrom) when that is earlier, so that the causes of its missed
// cells come from the same hosts as ls's (causeHosts).
func calendarReadFrom(from time.Time, t store.Task) time.Time {
	if mf := missedFrom(t); mf.Before(from) {
		return mf
	}
	return from
}

// causeHosts are the hosts whose boots tell why a task's slots were missed:
// this host, then the hosts of the runs the missed-slot rule read
// (SlotRuns from missedFrom to now), in order.
func causeHosts(host string, runs []store.Run) []string {
	hosts := []string{host}
	for _, r := range runs {
		hosts = appendNew(hosts, r.Host)
	}
	return hosts
}

// ruleRuns are the runs among runs that SlotRuns(t, missedFrom(t), now,
// tolerance) returns: those the missed-slot rule reads.
func ruleRuns(runs []store.Run, t store.Task, now time.Time, tolerance time.Duration) []store.Run {
	from := missedFrom(t)
	var out []store.Run
	for _, r := range runs {
		at, to := r.Slot, now
		if at.IsZero() {
			at, to = r.StartedAt, now.Add(tolerance)
		}
		if !at.Before(from) && !at.After(to) {
			out = append(out, r)
		}
	}
	return out
}

// addCauses gives each missed cell of row its cause, by the rule ls, scan,
// metrics and explain use (slotCause), from the uptime of the hosts the
// rule reads (causeHosts). runs are the task's runs as the row read them;
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
			// The boots of hosts not read yet, in one read (BootsOf):
			// rows after it of the same hosts read none.
			hosts := causeHosts(c.m.Host, ruleRuns(runs, t, c.now, c.req.Rule.Tolerance))
			if err := c.boots.prefetch(ctx, hosts); err != nil {
				return err
			}
			got, err := c.boots.uptime(ctx, hosts)
			if err != nil {
				return err
			}
			u = &got
		}
		k := cell.Slot.Unix()
		sl, has := bySlot[k]
		cell.Cause = slotCause(cell.Slot, slotRecords{named: byslot[k], slotless: sl, has: has}, c.stale, *u)
	}
	return nil
}
