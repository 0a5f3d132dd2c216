package catchup

import (
	"context"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// fleetZoneOf reads a shared ledger's task in the zone it is registered
// in, when this fire's zone is only this host's (no --tz, no CRON_TZ) and
// another: hosts of a fleet in several zones run one schedule, the first
// registration's. Re-registered in each host's zone, the task's zone
// flipped at every fire, each flip a schedule change, and the job ran once
// per host a day. The fire, hours from the slot, then stands for that slot
// (a duplicate when another host ran it), and says so every time.
func (l *lifecycle) fleetZoneOf(task store.Task) {
	here := l.sched.Location().String()
	if !l.req.ZoneFromHost || !l.st.Shared() || !schedule.SameExpr(task.Schedule, l.sched.Expr()) ||
		task.TZ == "" || schedule.SameZone(task.TZ, here) || (l.req.ZoneNotTZ != "" && schedule.SameZone(task.TZ, l.req.ZoneNotTZ)) {
		return // (registered in this fire's TZ by an older catchup: it moves to cron's zone, rescheduled says so)
	}
	if otherUsersZoneFile(l.m, task) { // root's fire: never another user's zone file, as the daemon (registerDaemonTask)
		l.m.notice("task %s: registered in %s on the shared ledger, a zone file's path another user registered, which a fire run "+
			"by root does not read: its slots are read in %s, this host's zone (set --tz or CRON_TZ on the line to choose the zone)",
			l.req.Task, task.TZ, here)
		return
	}
	s, err := parseSchedule(task.Schedule, task.TZ)
	if err != nil {
		return
	}
	l.m.notice("task %s: registered in %s on the shared ledger; this host reads its schedule in %s (/etc/localtime): "+
		"its slots are read in %s (set --tz or CRON_TZ on every host's line to choose the zone)", l.req.Task, task.TZ, here, task.TZ)
	l.sched, l.fleetZone = s, true
}

// resolveZone records the host's zone for a task registered before zones
// were always recorded (an empty zone, which every reader took as its own
// local zone), or registered in "localtime" (Debian's zoneinfo link to
// /etc/localtime, which an older catchup registered as a name: the task
// followed the host's zone wherever it went), once, with a notice; t gets
// the zone either way. A fire that names localtime again reads it as that
// zone (ZoneSpelling): no schedule change.
func resolveZone(ctx context.Context, st store.Store, m Machine, t *store.Task) {
	if t.Schedule == "" || (t.TZ != "" && t.TZ != "Local" && t.TZ != "localtime") || m.Zone == "" {
		return
	}
	changed, err := st.ResolveZone(ctx, t.Name, m.Zone)
	switch {
	case err != nil:
		m.notice("task %s: cannot record its zone: %v", t.Name, err)
	case changed && t.TZ == "localtime":
		m.notice("task %s: registered in localtime, which follows the host's zone wherever it goes; "+
			"recorded %s, this host's zone (name another in --tz or CRON_TZ to move it)", t.Name, m.Zone)
	case changed:
		m.notice("task %s: its zone was not recorded; recorded %s, this host's zone", t.Name, m.Zone)
	}
	t.TZ = m.Zone
}
