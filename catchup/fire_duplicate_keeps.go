package catchup

// A duplicate fire (its slot already held: it ran, runs, or was skipped by
// a policy) runs nothing, and registers no other line for the task: the
// fire that ran the slot registered what it ran. Before, each duplicate
// --cron fire registered its own command, options and --notify-cmd, so a
// second crontab's stale copy of a line, firing the slot after the line ran
// it, took over what the next scan replayed (docs/contract.md, Register).

import (
	"slices"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// duplicateKeeps reports whether this fire, a duplicate of slot, leaves
// the task's registration as it is, and keeps in l.kept what it would
// register differently, which its one line says (keptSaid). It registers (false) a task not registered yet, retired, or
// registered anew while it waited (registration decides), and a change of
// the schedule or zone: an edited line fired in the minute its old copy
// ran, whose new schedule counts from it (slots_run_schedule_change_duplicate).
func (l *lifecycle) duplicateKeeps(now, slot time.Time) bool {
	t, req := l.registered, l.req
	if t == nil || req.Schedule == nil || l.superseded || !t.RetiredAt.IsZero() {
		return false
	}
	tz := req.TZ
	if l.fleetZone {
		tz = t.TZ
	}
	tz, expr := schedule.ZoneName(t.TZ, tz), schedule.ExprName(t.Schedule, req.Schedule.Expr())
	if expr != t.Schedule || tz != t.TZ {
		return false
	}
	if !strings.HasPrefix(t.Source, "crontab:") { // a crontab line's: no fire writes it, nothing to say
		l.kept = registrationDiffers(*t, *l.taskRow(now, slot, tz, expr))
	}
	return true
}

// keptSaid ends the line of a duplicate fire that left a registration it
// differs from (l.kept) with what differs, never the values (a command may
// carry a secret); "" when nothing does.
func (l *lifecycle) keptSaid() string {
	if l.kept == "" {
		return ""
	}
	return "; its " + l.kept + " from the task's registration, which this fire leaves as it is (the fire that runs a slot " +
		"registers its line): if two lines fire this task, give each its own --task"
}

// registrationDiffers names what of row (a fire's registration) differs
// from the registered task t, as "command and --timeout differ" (never
// their values: a command may carry a secret); "" when nothing does.
func registrationDiffers(t, row store.Task) string {
	var d []string
	for _, f := range []struct {
		name string
		same bool
	}{
		{"command", slices.Equal(t.Argv, row.Argv)}, {"directory", t.Dir == row.Dir}, {"--replay", t.Replay == row.Replay},
		{"--retries", t.Retries == row.Retries}, {"--retry-delay", t.RetryDelay == row.RetryDelay},
		{"--timeout", t.Timeout == row.Timeout}, {"--kill-after", t.KillAfter == row.KillAfter},
		{"--no-capture", t.NoCapture == row.NoCapture}, {"--notify-cmd", t.NotifyCmd == row.NotifyCmd},
		{"--on-busy", t.OnBusy == row.OnBusy}, {"--max-age", t.MaxAge == row.MaxAge},
	} {
		if !f.same {
			d = append(d, f.name)
		}
	}
	switch len(d) {
	case 0:
		return ""
	case 1:
		return d[0] + " differs"
	}
	return strings.Join(d[:len(d)-1], ", ") + " and " + d[len(d)-1] + " differ"
}
