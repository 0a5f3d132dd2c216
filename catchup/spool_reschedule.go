package catchup

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// A --cron fire that cannot reach the ledger cannot change its task's
// schedule, zone or command either: its note carries the registration it
// would have made (noteTask), and the scan that records the note makes the
// change as of the fire (rescheduleNoted), as the fire would have: the old
// schedule's missed slots before it recorded expired (schedule-changed),
// with the notice and the alert (leaveSchedule), the new schedule counting
// from it. Without it, the task kept its old line's registration, and scan
// replayed the old schedule's slots with the old command after the line
// was edited.

// changed is the registration note e (task t's, fired at) changes t to,
// names resolved as a fire resolves them (ExprName, ZoneName), and whether
// it changes t's schedule, zone or command: only a registration older
// than the noted fire (a later reachable fire applied the line already),
// of a task not retired and not read from a crontab (scan's is the
// line's). A note whose zone is only its host's (no --tz, no CRON_TZ)
// keeps the registered zone under the same expression, so that a fleet
// host in another zone does not move a shared ledger's task to its own
// (fleetZoneOf): its note does not say whether the ledger is shared.
func (n *noteTask) changed(t store.Task, at time.Time) (expr, tz string, ok bool) {
	if !t.RetiredAt.IsZero() || strings.HasPrefix(t.Source, "crontab:") || !t.UpdatedAt.Before(at) {
		return "", "", false
	}
	expr = schedule.ExprName(t.Schedule, n.Schedule)
	// A note's local zone ("") is the one scan resolved the task's to.
	tz = schedule.ZoneName(t.TZ, n.TZ)
	if tz == "" || (n.HostZone && t.TZ != "" && expr == t.Schedule) {
		tz = t.TZ
	}
	return expr, tz, expr != t.Schedule || tz != t.TZ || !slices.Equal(n.Argv, t.Argv)
}

// rescheduleNoted registers note e's registration over task t's, when it
// changes it (changed), as of the noted fire: for a schedule or zone, what
// the fire would have done first (leaveSchedule, counting from the fire's
// registration instant, its slot), with its notice and alert; then the
// note's row, whose watermark is a second before that instant.
func rescheduleNoted(ctx context.Context, st store.Store, m Machine, t store.Task, e spoolEntry) error {
	n := e.Register
	expr, tz, ok := n.changed(t, e.StartedAt)
	if !ok {
		return nil
	}
	if reschedules(&t, expr, tz) {
		head := scheduleChange(e.Task, t, "", expr, tz) +
			fmt.Sprintf(": it counts from its fire at %s, which could not reach the ledger", rfc(e.StartedAt))
		// Alerted as the fire would have alerted them: its --notify-cmd,
		// else the task's own (before, the old registration's alone).
		msg, alert := leaveSchedule(ctx, st, m, t, expr, tz, n.NotifyCmd, n.changeFrom(e.StartedAt), head)
		m.notice("%s", msg)
		alert()
	}
	row := n.task(e.Task, e.StartedAt)
	row.Schedule, row.TZ = expr, tz
	row.SettledThrough = n.changeFrom(e.StartedAt).Add(-time.Second)
	return st.UpsertTask(ctx, row)
}

// rescheduledAsNoted is task t as rescheduleNoted leaves it for note e, for
// the readers, which write nothing: its registration changed, and on a
// change of schedule or zone the new one counting from the fire. The old
// schedule's slots that scan records expired then are no longer missed.
func (n *noteTask) rescheduledAsNoted(t store.Task, at time.Time) store.Task {
	expr, tz, ok := n.changed(t, at)
	if !ok {
		return t
	}
	if reschedules(&t, expr, tz) {
		t.SettledThrough = n.changeFrom(at).Add(-time.Second)
		t.ScheduleSince = t.SettledThrough
	}
	r := n.task(t.Name, at)
	t.Schedule, t.TZ, t.Argv, t.Dir, t.Replay, t.Source = expr, tz, r.Argv, r.Dir, r.Replay, r.Source
	t.Retries, t.RetryDelay, t.Timeout, t.KillAfter, t.NoCapture = r.Retries, r.RetryDelay, r.Timeout, r.KillAfter, r.NoCapture
	t.NotifyCmd, t.OnBusy, t.MaxAge, t.UpdatedAt = r.NotifyCmd, r.OnBusy, r.MaxAge, at
	if r.RegisteredAt.Before(t.RegisteredAt) {
		t.RegisteredAt = r.RegisteredAt
	}
	return t
}
