package catchup

import (
	"context"

	"github.com/catchup/catchup/catchup/schedule"
)

// rereadAfterWait reads the task's registration again once this fire has
// waited for the task's lock (--wait, --on-busy wait): what it read before
// the wait may be stale, and a registration made from it is wrong.
//
//   - The schedule or zone changed meanwhile (another fire of an edited
//     line, a scan of the crontab): this fire's line is the older one, and
//     registering it would take the task back to it, from a registration
//     that still held its own line, so that it saw no change and recorded
//     none of the newer schedule's missed slots expired while the ledger
//     moved the watermark past them. The fire is superseded: it still
//     runs (or skips) its own slot, and registers nothing (registration).
//   - The task was first registered, registered again after a `forget`,
//     or given its first schedule (it ran by hand only) meanwhile: the
//     fire registers over that registration, a change of schedule made
//     openly (which line is newer cannot be told).
//   - Only registered again with the same schedule (another fire of the
//     line the fire read, a duplicate; the line's edit reverted): a change
//     this fire makes counts from now, not from its slot (waitedPast), as
//     does one over a registration made meanwhile: a fire of the old
//     schedule during the wait, of a slot after this fire's (12:00 for a
//     fire of 11:30 that got the lock at 12:05), lock-skipped, lay past
//     the change's old slots and is no slot of the new schedule, and
//     vanished without a record (slots_run_wait_schedule_change_reverted).
//
// A registration made meanwhile on a shared ledger, in a zone other than
// this host's (another host of a fleet), is read in its zone (fleetZoneOf),
// as by a fire that found it before any wait: rezoned then says that the
// fire's slot, read in this host's zone, is to be read again. Without it
// the fire moved the fleet's task to its own zone, and recorded expired
// the fleet's slot it stands for (fleet_wait_zone_registered_meanwhile).
//
// The comparison is of the ledger's records, never of clocks, which a
// fleet's hosts do not share. A read fault leaves the fire as it was.
func (l *lifecycle) rereadAfterWait(ctx context.Context) (rezoned bool) {
	t, err := l.st.Task(ctx, l.req.Task)
	if err != nil || !t.RetiredAt.IsZero() {
		return false // still unregistered or retired, or unreadable: as read
	}
	before := l.registered
	if before == nil || before.Schedule == "" {
		resolveZone(ctx, l.st, l.m, &t)
		l.registered, l.revive, l.waitedPast = &t, nil, true
		if l.sched != nil && !l.fleetZone {
			l.fleetZoneOf(t)
			return l.fleetZone
		}
		return false
	}
	if t.Schedule == before.Schedule && (t.TZ == before.TZ || t.TZ == "" || t.TZ == "Local") {
		l.waitedPast = !t.UpdatedAt.Equal(before.UpdatedAt)
		return false
	}
	l.superseded = true
	if s := l.req.Schedule; s != nil && !(schedule.SameExpr(t.Schedule, s.Expr()) && schedule.SameZone(t.TZ, s.Location().String())) {
		l.m.notice("task %s was registered anew while this fire waited for its lock (schedule %q in %s): "+
			"this fire runs its own slot and leaves that registration as it is", l.req.Task, t.Schedule, t.TZ)
	}
	return false
}
