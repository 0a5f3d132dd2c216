package catchup

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// RegisterDaemonTask registers a task of `catchup daemon`'s crontab (an
// argv task: the daemon fires and replays it in-process). As for a crontab
// line found by scan, registration dates back to the task's first run, and
// a changed schedule counts from now (but see firesFrom). On a shared
// ledger a line whose zone is only the host's (zoneFromHost: no --tz, no
// CRON_TZ) keeps the zone the task is registered in, as a fire does
// (fleetZoneOf): replicas in several zones run one schedule. The caller
// reads the returned task's zone. When the line's schedule or zone changed, replaced is the
// registration it replaced (its Task.Name is "" otherwise), and the slots
// that one missed are recorded expired (but those the new line takes),
// before the new schedule is written; the daemon logs them and runs their
// alert (Replaced), and records those its old loop leaves after this
// (RecordLeftBehind) once its fires and replays have ended. firesFrom is where the line's
// new loop may fire from, late (no later than where it does: the daemon's
// start, a reload's read, or where a loop that never began would have;
// zero: now): a changed schedule counts from just before the oldest old
// slot after it that the new one has too (leftToTheLoop), not from now.
// The writes are of the task as read: one retired (`catchup forget`) or
// purged since is left as forget left it (not registered, nor its old
// schedule's slots recorded), the daemon's log says so (Machine.Notice),
// and replaced says it (Replaced.Refused): the line's next fire, or the
// next reload, registers it anew, as it does any retired task's line.
// The registration names this daemon's host and pid (m.Host, m.PID) in its
// source, as the replica that wrote it, but an unchanged line on another replica writes
// nothing (sameRegistration).
func RegisterDaemonTask(ctx context.Context, st store.Store, m Machine, t store.Task, zoneFromHost bool, firesFrom time.Time) (_ store.Task, replaced Replaced, err error) {
	return registerDaemonTask(ctx, st, m, t, zoneFromHost, firesFrom, time.Time{})
}

// registerDaemonTask is RegisterDaemonTask, and for a fire of the line
// that registers it (fireSlot, zero for none: daemonLineDiffers) a changed
// schedule counts from just before that fire's slot, as a `run --cron`
// fire's change counts from its fire: the fire stands for that slot.
func registerDaemonTask(ctx context.Context, st store.Store, m Machine, t store.Task, zoneFromHost bool, firesFrom, fireSlot time.Time) (_ store.Task, replaced Replaced, err error) {
	now := m.Now()
	t.Source = daemonSourceOn(t.Source, m.Host, m.PID)
	notify := t.NotifyCmd // as written, for the alert
	t.RegisteredAt, t.UpdatedAt = now, now
	t.NotifyCmd = redact.Command(t.NotifyCmd) // the daemon's replays run its line's (ScanRequest.NotifyCmds)
	old, err := st.Task(ctx, t.Name)
	known := err == nil
	var of store.Of // unchecked: a task new or retired when read is registered anew, as of now
	if known && old.RetiredAt.IsZero() {
		of = store.OfLive(old.RegisteredAt)
	}
	switch {
	case err == nil:
		if old.RegisteredAt.Before(t.RegisteredAt) {
			t.RegisteredAt = old.RegisteredAt
		}
		t.SettledThrough = old.SettledThrough
		switch fleet := zoneFromHost && st.Shared() && old.TZ != "" && old.RetiredAt.IsZero() && schedule.SameExpr(old.Schedule, t.Schedule) &&
			!schedule.SameZone(old.TZ, t.TZ); {
		case fleet && otherUsersZoneFile(m, old):
			m.notice("task %s: registered in %s on the shared ledger, a zone file's path another user registered, which a daemon run "+
				"by root does not read: its slots are read in %s, this host's zone (set --tz or CRON_TZ on the line to choose the zone)",
				t.Name, old.TZ, t.TZ)
		case fleet:
			m.notice("task %s: registered in %s on the shared ledger; this host's zone is %s: its slots are read in %s "+
				"(set --tz or CRON_TZ on the line to choose the zone)", t.Name, old.TZ, t.TZ, old.TZ)
			t.TZ = old.TZ
		}
		t.TZ = schedule.ZoneName(old.TZ, t.TZ)                   // UTC for Etc/UTC is no schedule change
		t.Schedule = schedule.ExprName(old.Schedule, t.Schedule) // nor 1-5 for MON-FRI
		switch {
		case !old.RetiredAt.IsZero():
			t.SettledThrough = now.Add(-time.Second) // retired (its line was removed), registered anew as of now
		case old.Schedule != "" && (old.Schedule != t.Schedule || old.TZ != t.TZ):
			if !old.PausedAt.IsZero() {
				// The old schedule's slots of its pause that nothing
				// recorded, recorded paused first, as scan does for an
				// edited line (registerEntry) and a fire for --cron.
				if _, err := recordPauseOf(ctx, st, m, old, now, of); err != nil {
					return daemonSinceRead(m, t, err, oldSlotsNone)
				}
			}
			left := leftToTheLoop(m, old, t, firesFrom, now)
			from := left // the new schedule counts from just before the first
			if !fireSlot.IsZero() && (len(left) == 0 || fireSlot.Before(left[0])) {
				from = append([]time.Time{fireSlot}, left...)
			}
			t.SettledThrough = countsFrom(now, from)
			// The old schedule's missed slots (but those the new line
			// takes) are recorded expired before the new schedule is
			// written: the other way round, a daemon killed in between
			// left them below the new watermark, lacking from the new
			// schedule, with no record. A fire or replay of the old loop
			// that has not claimed one of them yet finds it expired and
			// runs nothing (store.ClaimRequest.Replay); one that has is
			// not expired (AddRuns).
			taken := firesFrom
			if taken.IsZero() || t.SettledThrough.Before(taken) {
				taken = t.SettledThrough
			}
			lb := LeftBehind{Old: old, Expr: t.Schedule, TZ: t.TZ, Cut: now, Taken: taken, Notify: notify}
			if replaced.Said, replaced.alert, err = recordLeftBehind(ctx, st, m, lb); err != nil {
				return daemonSinceRead(m, t, err, oldSlotsNone)
			}
			replaced.Task = old
			m.notice("%s: it counts from %s, and the slots the old one missed are recorded expired (%s)%s "+
				"(catchup backfill --task %s runs a past range)",
				scheduleChange(t.Name, old, "the line's ", t.Schedule, t.TZ), countsFromSaid(from), store.ReasonScheduleChanged,
				leftToTheLine(left, "the next start", ""), t.Name)
		}
	case !errors.Is(err, store.ErrNotFound):
		return t, Replaced{}, err
	}
	first, err := st.EarliestRun(ctx, t.Name)
	if err != nil {
		return t, Replaced{}, err
	}
	if !first.IsZero() && first.Before(t.RegisteredAt) {
		t.RegisteredAt = first
	}
	if t.SettledThrough.IsZero() {
		t.SettledThrough = t.RegisteredAt.Add(-time.Second)
	}
	if known {
		t.ScheduleSince = scheduleSinceAfter(old, t)
	}
	if known && sameRegistration(old, t) {
		return t, replaced, nil // a start or reload of an unchanged line: no write (one fsync per line)
	}
	if err := st.UpsertTaskOf(ctx, of, t); err != nil {
		if isSinceRead(err) {
			// Its old schedule's slots recorded, then the task retired.
			if replaced.Said != "" {
				m.notice("task %s: %s", t.Name, replaced.Said)
			}
			return daemonSinceRead(m, t, err, "")
		}
		if replaced.Said != "" {
			// Recorded, but the reload fails: said here, since the
			// retried registration finds them recorded and says nothing.
			m.notice("task %s: %s", t.Name, replaced.Said)
		}
		return t, Replaced{}, err
	}
	return t, replaced, nil
}

// Replaced is, for RegisterDaemonTask, the registration a change of the
// line's schedule or zone replaced (Task; its Name is "" when none), and
// what the registration recorded expired of the slots it left missed:
// Said for the daemon's log ("" when none), Alert to run their alert.
type Replaced struct {
	Task  store.Task
	Said  string
	alert func(ctx context.Context, m Machine, notify string)
	// refused: the registration was not written, the task retired or
	// purged since the daemon read it (RegisterDaemonTask).
	refused bool
}

// Refused reports whether the registration was refused, the task retired
// (`catchup forget`) or purged since the daemon read it: nothing of its
// old registration is the daemon's to record.
func (r Replaced) Refused() bool { return r.refused }

// isSinceRead reports whether err refuses a write of a task retired
// (store.ErrRetired) or purged (store.ErrGone) since it was read.
func isSinceRead(err error) bool {
	return errors.Is(err, store.ErrRetired) || errors.Is(err, store.ErrGone)
}

// oldSlotsNone says, for daemonSinceRead, that a changed schedule's
// records of the old one were refused too.
const oldSlotsNone = ", nor its old schedule's slots recorded"

// daemonSinceRead is RegisterDaemonTask's return for the registration of
// t refused by err: a task retired or purged since the daemon read it is
// left so, with one warning in the daemon's log (and, more, what else was
// not written); any other err as it is.
func daemonSinceRead(m Machine, t store.Task, err error, more string) (store.Task, Replaced, error) {
	const anew = " (the line's next fire, or the next reload, registers it anew)"
	switch {
	case errors.Is(err, store.ErrRetired):
		m.notice("task %s was retired since this daemon read it (catchup forget, or its line gone): its line is not registered%s%s", t.Name, more, anew)
	case errors.Is(err, store.ErrGone):
		m.notice("task %s was forgotten since this daemon read it (catchup forget --purge): its line is not registered%s%s", t.Name, more, anew)
	default:
		return t, Replaced{}, err
	}
	return t, Replaced{refused: true}, nil
}

// Alert runs the missed-slot alert of the slots r recorded expired (none:
// nothing) through m, with the line's --notify-cmd as written (""
// the ledger's).
func (r Replaced) Alert(ctx context.Context, m Machine, notify string) {
	if r.alert != nil {
		r.alert(ctx, m, notify)
	}
}

// leftToTheLoop is the old schedule's slots after firesFrom (and after
// its watermark), up to now, that the new one has too: the line's new loop
// fires them, late, and RecordLeftBehind leaves them to it. The new
// schedule counts from just before the oldest (countsFrom): counted from
// now, such a slot lay at or before the new watermark with no record, so a
// daemon stopped or killed before that fire dropped it without a word.
// Between it and now the new schedule owes no slot its new loop would not
// fire (it fires every slot after firesFrom).
func leftToTheLoop(m Machine, old, t store.Task, firesFrom, now time.Time) []time.Time {
	if firesFrom.IsZero() {
		return nil
	}
	was, err := storedSchedule(m, nil, old)
	if err != nil || was == nil {
		return nil
	}
	s, err := parseSchedule(t.Schedule, t.TZ)
	if err != nil || s == nil {
		return nil
	}
	after := firesFrom
	for _, w := range []time.Time{old.SettledThrough, old.ScheduleSince} {
		if w.After(after) {
			after = w // its settled slots, and those before it took effect, are none of its own to leave
		}
	}
	var left []time.Time
	was.Slots(after, now, func(slot time.Time) bool {
		if s.Has(slot) {
			left = append(left, slot)
		}
		return true
	})
	return left
}

// countsFromSaid words where a daemon line's new schedule counts from,
// for its notice (left: leftToTheLoop's).
func countsFromSaid(left []time.Time) string {
	if len(left) == 0 {
		return "now"
	}
	return "just before " + rfc(left[0])
}

// scheduleSinceAfter is when task t's schedule took effect once t is
// registered over old, as the ledger sets it (store.Task.ScheduleSince).
func scheduleSinceAfter(old, t store.Task) time.Time {
	switch {
	case !old.RetiredAt.IsZero():
		return time.Time{}
	case old.Schedule != t.Schedule || old.TZ != t.TZ:
		return t.SettledThrough
	}
	return old.ScheduleSince
}

// sameRegistration reports whether writing t would leave the ledger's row
// old as it is, but for its update time: every field UpsertTask writes is
// equal (times and durations as the ledger keeps them), and old is not
// retired (the write revives it).
func sameRegistration(old, t store.Task) bool {
	return old.RetiredAt.IsZero() &&
		old.Name == t.Name && old.Schedule == t.Schedule && old.TZ == t.TZ && old.Replay == t.Replay &&
		slices.Equal(old.Argv, t.Argv) && old.Dir == t.Dir && old.Shell == t.Shell && sameSourceBesideHost(old.Source, t.Source) &&
		old.Retries == t.Retries && old.RetryDelay == t.RetryDelay && old.RegisteredAt.Equal(t.RegisteredAt) &&
		old.Timeout == t.Timeout && old.KillAfter == t.KillAfter && old.NoCapture == t.NoCapture &&
		old.NotifyCmd == t.NotifyCmd && old.OnBusy == t.OnBusy && old.MaxAge == t.MaxAge &&
		old.SettledThrough.Equal(t.SettledThrough)
}
