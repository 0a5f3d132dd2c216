package catchup

import (
	"context"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// registration is the task row a --cron fire upserts with its claim. A
// task registers as of the slot its first fire stands for (or now), so that
// this slot is itself covered by the missed-slot rule. locked says that the
// fire holds its task's lock (its claim; not a lock skip, not a paused fire).
func (l *lifecycle) registration(ctx context.Context, now, slot time.Time, locked bool) *store.Task {
	if l.superseded {
		return nil // registered anew while this fire waited: the newer registration stands
	}
	if l.req.Schedule == nil {
		return l.revival(now, slot)
	}
	tz, expr := l.req.TZ, l.req.Schedule.Expr()
	if l.fleetZone {
		tz = l.registered.TZ
	}
	if l.registered != nil {
		tz = schedule.ZoneName(l.registered.TZ, tz)           // UTC for Etc/UTC is no schedule change
		expr = schedule.ExprName(l.registered.Schedule, expr) // nor 1-5 for MON-FRI: the ledger keeps the watermark
		l.rescheduled(ctx, expr, tz, l.scheduleFrom(now, slot), locked)
	} else if l.req.ZoneNotTZ != "" {
		l.m.notice("task %s: its schedule is read in %s, the zone cron fires it in (/etc/localtime), not in TZ=%s; "+
			"name another zone in --tz or CRON_TZ to read it there", l.req.Task, tz, l.req.ZoneNotTZ)
	}
	row := l.taskRow(now, slot, tz, expr)
	l.noticeMaskedCommand(*row)
	l.noticeMaskedNotify(row.NotifyCmd)
	return row
}

// taskRow is the task row of this fire's registration under schedule expr
// in zone tz, registered as of slot (or now, if earlier).
func (l *lifecycle) taskRow(now, slot time.Time, tz, expr string) *store.Task {
	replay, onBusy := l.req.Replay, l.req.OnBusy
	if replay == "" {
		replay = "all"
	}
	if onBusy == "" {
		onBusy = "replay"
	}
	// The ledger keeps the command and --notify-cmd without their secrets;
	// the fire runs them as written.
	argv := redact.Argv(l.req.Argv)
	return &store.Task{
		Name: l.req.Task, Schedule: expr, TZ: tz, Replay: replay,
		Argv: argv, Dir: l.req.Dir, Source: runSource(l.m.UID, !slices.Equal(argv, l.req.Argv)), Retries: l.req.Retries,
		RetryDelay: l.req.RetryDelay, RegisteredAt: l.registeredFrom(now, slot), UpdatedAt: now,
		Timeout: l.req.Timeout, KillAfter: l.req.KillAfter, NoCapture: l.req.NoCapture, NotifyCmd: redact.Command(l.req.NotifyCmd),
		OnBusy: onBusy, MaxAge: l.req.MaxAge,
		// Nothing before the first slot is missed; on a schedule change the
		// ledger takes this as the moment the new schedule counts from.
		SettledThrough: l.scheduleFrom(now, slot).Add(-time.Second),
	}
}

// scheduleFrom is when the schedule this fire registers counts from, if it
// changes the task's: its registration instant (registeredFrom), but now
// for a --slot fire of a task already registered, which changes the
// schedule now: the slots between its old slot and now were never the new
// schedule's (nor, before the task's registration, anyone's), and counting
// from the --slot made scan replay them; and now for a fire that waited for
// the lock while the task was registered again (waitedPast): the old
// schedule's slots fired meanwhile lie after its slot, and are recorded
// expired only before from.
func (l *lifecycle) scheduleFrom(now, slot time.Time) time.Time {
	if l.registered != nil && (!l.req.Slot.IsZero() || l.waitedPast) {
		return now
	}
	return l.registeredFrom(now, slot)
}

// registeredFrom is when this fire registers its task from: its slot (or
// now, if earlier), so that the slot is itself covered. A retired task
// registers anew from the fire, so a --slot fire for a slot from before the
// retirement registers it from now: the slots between are never missed.
func (l *lifecycle) registeredFrom(now, slot time.Time) time.Time {
	from := earliest(now, slot)
	if l.revive != nil && from.Before(l.revive.RetiredAt) {
		return now
	}
	return from
}
