package catchup

import (
	"context"
	"errors"
	"fmt"
	"os/user"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// shellReplay is how to replay a crontab-discovered task: its line's command
// part, run the way cron runs it. The crontab's variables live only in memory,
// never in the ledger (they may hold secrets).
type shellReplay struct {
	task    store.Task
	command string
	stdin   string
	program string // the line's job as its `catchup run` names it (crontab.Entry.Program)
	dir     string
	user    string
	vars    []string
	// as is the user the line runs as when that is not the scanning user
	// (a root scan replaying another user's line); nil otherwise.
	as *user.User
	// db is the ledger the line's `catchup run` records into when the
	// line names one (--db, CATCHUP_DB=): where its fires keep their notes.
	db string
	// err says why the line cannot be replayed (its crontab was refused or
	// is gone); nothing runs.
	err error
	// alertLeft, when registering the line changed its schedule, runs the
	// missed-slot alert for the old schedule's slots it recorded expired:
	// the caller runs it when it may wait for it (a fire: after its job).
	alertLeft func()
	// left is what registering the line changed left behind: the old
	// schedule's slots recorded expired (a dry run's: to be recorded).
	left leftByChange
	// gone is the crontab the task was found in when its line is no
	// longer there (or the file itself is gone): scan retires the task.
	gone string
}

// env is scan's environment overlaid with what cron sets and the crontab's
// own variables; CATCHUP_DB (or CATCHUP_DB_FILE, if scan found its ledger
// through one) points the line's `catchup run` at this ledger. A line of
// another user gets cron's environment instead (userEnv).
func (sr *shellReplay) env(m Machine) []string {
	if sr.as != nil {
		return sr.userEnv(m)
	}
	set := map[string]string{"SHELL": "/bin/sh", "HOME": sr.dir, "CATCHUP_DB": m.DB, "CATCHUP_HOST": m.Host}
	if m.DBFile != "" {
		delete(set, "CATCHUP_DB")
		set["CATCHUP_DB_FILE"] = m.DBFile
	}
	if sr.user != "" {
		set["LOGNAME"], set["USER"] = sr.user, sr.user
	}
	for _, kv := range sr.vars {
		k, v, _ := strings.Cut(kv, "=")
		set[k] = v
	}
	var env []string
	for _, kv := range jobEnviron(m) {
		if k, _, _ := strings.Cut(kv, "="); !hasKey(set, k) {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// registerEntry turns a crontab line into a registered task (unless dry)
// and the way to replay it. Registration dates back to the task's first
// recorded run, so fires made before any scan saw the line still count. A
// line whose schedule changed records the slots missed under the old one
// expired, and alerts for them by notify (else the task's own; never
// another user's line's), as scan alerts.
//
// read, when set, is the task as the scan read it (lineOf): a registration
// refuses, in its transaction, a task retired or purged since (nil: a
// fire's, which registers a retired task anew).
func registerEntry(ctx context.Context, st store.Store, m Machine, se sourcedEntry, tol time.Duration, dry bool, notify string,
	read *store.Task) (*shellReplay, string, error) {
	e, path := se.Entry, se.path
	where := fmt.Sprintf("%s:%d", e.File, e.Line)
	// Whom the line runs as first: another user's line this scan refuses
	// has none of its zone paths checked by this scan's user (root's
	// warnings would tell that user what lies behind a path it cannot read).
	sr, err := newShellReplay(m, se)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", where, err)
	}
	source := lineRegistration(path, e.Line, m, sr) // whose line it is (ownNotifyCmd)
	// Always a name, so that every reader reads the same slots. Another
	// user's zone files are read as that user (zoneReader), every time:
	// the check above looked, and a file swapped since is theirs to read.
	zr := sr.zoneReader()
	lz, err := m.asUser.readLine(zr, m, e) // once per scan for lines alike
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", where, err)
	}
	zone, maxAge := lz.zone, lz.maxAge
	var warning string
	if lz.lineZone != "" && lz.cronTZ != "" && !schedule.SameZone(lz.lineZone, lz.cronTZ) {
		// cron fires the line in CRON_TZ; its fire reads the slot in --tz:
		// each fire stands for a slot other than the one cron fired.
		warning = fmt.Sprintf("%s: --tz %s disagrees with the crontab's CRON_TZ=%s, the zone cron fires the line in; "+
			"drop --tz, or make them agree", where, e.Zone, e.TZ)
	}
	if lz.fromHost && !schedule.SameZone(zone, m.Zone) {
		// A scan run by hand from a shell with another TZ: cron
		// does not read that TZ, and neither does scan.
		warning = fmt.Sprintf("%s: read in %s, cron's zone (/etc/localtime), not in TZ=%s of this environment; "+
			"a CRON_TZ= line in the crontab, or --tz on the line, gives it another", where, zone, m.Zone)
	}
	if e.Cron != "" && !schedule.SameExpr(e.Cron, e.Expr) { // another spelling of the line's schedule agrees
		if warning != "" {
			warning += "; "
		}
		warning += fmt.Sprintf("%s: --cron %q disagrees with the line's schedule %q; using the line's", where, e.Cron, e.Expr)
	}
	now := m.Now()
	// The command as stored: without the secrets a line can carry (replays
	// re-read the line from its file).
	t := store.Task{Name: e.Task, Schedule: e.Expr, TZ: zone, Replay: "all", Shell: crontab.Redacted(e.Command), Dir: sr.dir,
		Source: source, RegisteredAt: now, UpdatedAt: now}
	old, err := st.Task(ctx, e.Task)
	if err == nil && read != nil && lineChanges(old, e.Expr, zone) {
		if err := ownersNotesFirst(m, old, sr); err != nil { // another user's notes: left to that user
			return nil, warning, fmt.Errorf("%s: %w", where, err)
		}
	}
	var edited func(spoolEntry) bool // the notes of the edited line's own fires (editedLineFires)
	what := fmt.Sprintf("the registration of task %s's edited line", e.Task)
	if err == nil && lineChanges(old, e.Expr, zone) {
		edited = editedLineFires(m, old, e.Expr, zone, zr)
	}
	if err == nil && lineChanges(old, e.Expr, zone) {
		// A note's fire stands for a slot of the schedule it fired under:
		// the old line's recorded before the change, never expired by it
		// (notesBeforeChange); the edited line's after it.
		take := oldLineNotes(e.Task, edited)
		if !dry && (hasNotes(m) || hasTakenNotes(m)) {
			if err := notesBeforeOf(ctx, st, m, tol, what, take); err != nil {
				return nil, warning, fmt.Errorf("%s: %w", where, err)
			}
			old, err = st.Task(ctx, e.Task) // as the notes leave it
		}
		if err == nil && notesHeldElsewhere(m, take) {
			return nil, warning, fmt.Errorf("%s: task %s's line changes its schedule or zone, and is %w", where, e.Task, errNotesHeld)
		}
	}
	var of store.Of // the task as the scan read it, which the registration writes
	if err == nil || errors.Is(err, store.ErrNotFound) {
		var refused error
		if of, refused = lineOf(read, old, err == nil); refused != nil {
			return nil, warning, sinceRead(e.Task, refused)
		}
	}
	retired := err == nil && !old.RetiredAt.IsZero() // registered anew, as of now
	if err == nil && !retired {
		if err := sr.checkTakeover(m, old, path); err != nil {
			return nil, warning, fmt.Errorf("%s: %w", where, err)
		}
		if err := lineUserChanged(m, old, path, sr); err != nil {
			return nil, warning, fmt.Errorf("%s: %w", where, lineRefusal(err.Error()))
		}
	}
	if other := lineSource(old.Source); err == nil && !retired && other != "" && other != path {
		// The task is another crontab's line, still there: two scans, each
		// given one file, would register them in turn (discover sees both
		// only in one scan), each time counting the task from now.
		// The scanning user's own line takes the task over from another
		// user's line (which may not take it back: checkTakeover).
		f, gone := newCrontabs(m).findLine(old)
		if gone == nil && !sameJob(f.Entry, e) && (sr.as != nil || lineUserName(m, f) == lineUserName(m, se)) {
			return nil, warning, lineRefusal(fmt.Sprintf("%s: task %s is also the line at %s:%d, with another schedule, zone, "+
				"variables or command: scan does not register this line (give it its own --task)", where, e.Task, other, f.Line))
		}
	}
	changed := false // the line changes the task's schedule or zone
	switch {
	case retired:
		t.SettledThrough = now.Add(-time.Second)
	case err == nil:
		t.Replay, t.Retries, t.RetryDelay = old.Replay, old.Retries, old.RetryDelay
		t.Timeout, t.KillAfter, t.NoCapture = old.Timeout, old.KillAfter, old.NoCapture
		if sr.as == nil && ownNotifyCmd(m.UID, old) {
			// Scan runs it as the task's alert, as itself: never the one
			// another user registered, nor one for another user's line.
			t.NotifyCmd = old.NotifyCmd
		}
		t.OnBusy, t.MaxAge = old.OnBusy, old.MaxAge
		// What the ledger keeps beside the line: its pause, its prune
		// floor (this scan judges the task by them, as by a task it reads).
		t.PausedAt, t.PausedUntil, t.PrunedThrough = old.PausedAt, old.PausedUntil, old.PrunedThrough
		if old.RegisteredAt.Before(t.RegisteredAt) {
			t.RegisteredAt = old.RegisteredAt
		}
		t.SettledThrough = old.SettledThrough
		t.TZ = schedule.ZoneName(old.TZ, zone) // UTC for Etc/UTC is no schedule change
		// Nor is another spelling of the registered schedule (1-5 for
		// MON-FRI): the registered text stays, and with it the watermark.
		t.Schedule = schedule.ExprName(old.Schedule, e.Expr)
		if old.Schedule != "" && (old.Schedule != t.Schedule || old.TZ != t.TZ) {
			changed = true
			if !old.PausedAt.IsZero() && !dry {
				// The slots of its pause under the old schedule that no
				// scan recorded are recorded paused first, as a fire that
				// changes the schedule (lifecycle.rescheduled) and the
				// daemon at a reload (RegisterDaemonTask) record them.
				// Of the task as read (a scan's: live; a fire's, which
				// registers a retired task anew: not).
				if _, err := recordPauseOf(ctx, st, m, old, now, store.Of{Registered: old.RegisteredAt, Live: read != nil}); err != nil {
					return nil, warning, sinceRead(e.Task, err)
				}
			}
			if sr.as != nil {
				old.NotifyCmd = "" // another user's line: never its alert as this scan's user
			} else if _, written, ok := lineNotify(m, st, sr, e); ok && written != "" {
				old.NotifyCmd = written // the edited line's own, as its fire runs it
			}
			var spared []time.Time
			s, _ := zr.parseLine(t.Schedule, t.TZ)
			was, _ := storedSchedule(m, nil, old)
			spare := lineMayStillFire(s, was, now, tol, &spared) // the edited line fires them, late
			left, err := expireLeftBehind(ctx, st, m, old, t.Schedule, t.TZ, notify, leftAt(now), spare, edited, dry)
			if err != nil && (read != nil || !errors.Is(err, store.ErrRetired)) { // a fire's: forget recorded them
				return nil, warning, sinceRead(e.Task, err)
			}
			t.SettledThrough = lineCountsFrom(s, now, tol, spared, read == nil && !dry) // now, or before the slots left to the line's fire (or this fire's)
			sr.alertLeft, sr.left = left.alert, left
			if warning != "" {
				warning += "; "
			}
			warning += fmt.Sprintf("%s: %s, as cron reads it: it counts from now, and %s%s "+
				"(catchup backfill --task %s runs a past range)", where, scheduleChange(e.Task, old, "the line's ", e.Expr, t.TZ),
				left.lineNotice(dry), leftToTheLine(spared, "a scan", " once --tolerance has passed"), e.Task)
		}
	case !errors.Is(err, store.ErrNotFound):
		return nil, warning, err
	}
	if err == nil && !retired {
		t.ScheduleSince = scheduleSinceAfter(old, t) // as the ledger sets it
	}
	if e.Replay != "" {
		t.Replay = e.Replay
	}
	if stored, _, ok := lineNotify(m, st, sr, e); ok {
		t.NotifyCmd = stored
	} else if w := lineNotifyWarning(m, sr, e, where); w != "" && !(m.UID != 0 && st.Shared()) {
		if warning != "" {
			warning += "; "
		}
		warning += w
	}
	if maxAge > 0 {
		t.MaxAge = maxAge
	}
	if e.OnBusy != "" {
		t.OnBusy = e.OnBusy
	}
	first, err := st.EarliestRun(ctx, e.Task)
	if err != nil {
		return nil, warning, err
	}
	if !first.IsZero() && first.Before(t.RegisteredAt) && !retired {
		t.RegisteredAt = first
	}
	if t.SettledThrough.IsZero() {
		t.SettledThrough = t.RegisteredAt.Add(-time.Second)
	}
	if !dry {
		if err := registerLineOf(ctx, st, of, t); err != nil {
			return nil, warning, err
		}
		if changed {
			recordEditedFires(ctx, st, m, tol, what, edited)
		}
	}
	if changed {
		// The change's watermark as the ledger sets it (schedule_since
		// stays the instant the new schedule counts from).
		t.SettledThrough = keptBelowFailed(ctx, st, old, t.SettledThrough)
	}
	sr.task = t
	if _, other := sr.otherUID(); !dry && !other {
		markLineTask(m, e.Task, path, true)
	}
	return sr, warning, nil
}
