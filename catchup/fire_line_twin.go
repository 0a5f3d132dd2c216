package catchup

import (
	"os"
	"path/filepath"
	"time"

	"github.com/catchup/catchup/internal/filetrust"

	"github.com/catchup/catchup/store"
)

// A crontab line's fire (no --cron) that cannot read the ledger cannot read
// its line's schedule either, so it cannot name its slot as a --cron fire
// does (notedHolder). Cron fires a line at most once in a minute, at its
// start: a second fire of the line in the same wall-clock minute (two cron
// daemons, a crontab installed twice, a clock stepped back a few seconds)
// is the first's twin, and stands for the same slot under any schedule of
// whole minutes, with one exception that lineTwinOf keeps out: a fire in a
// minute's last earlyFire seconds may be early for the next minute's slot
// (cron fired it, this clock lags: earlySlot), where a fire before them in
// that minute stood for the slot before.

// lineTwinOf reports, and says, whether a note of notes is of a fire of
// this line that ran in the same minute as a fire at now, on the same side
// of the minute's early window, and succeeded, or failed or timed out (a
// twin is the slot's own cron fire, which a failed run holds the slot
// against: a failing job runs once per slot, R13) unless --force: this
// fire is its twin, runs nothing and leaves no note, so that the next scan
// counts the slot once, by the first fire's note.
func (l *lifecycle) lineTwinOf(notes *pendingNotes, now time.Time) bool {
	for _, e := range notes.fires {
		if e.Task != l.req.Task || !e.Slot.IsZero() || e.ByHand || !e.Ran || !sameCronMinute(e.StartedAt, now) {
			continue
		}
		failed := e.Status == store.StatusFailed || e.Status == store.StatusTimeout
		if e.Status != store.StatusSucceeded && (!failed || l.req.Force) {
			continue
		}
		l.m.notice("task %s: a fire of its line ran and %s at %s, in this minute, noted on this host while the ledger failed: "+
			"this fire is its twin (cron fires a line once a minute), not run; the next scan records that one (--manual runs the task by hand)",
			l.req.Task, notedOutcome(e.Status), rfc(e.StartedAt))
		return true
	}
	return false
}

// sameCronMinute reports whether fires at a and b stand for one slot of
// any schedule of whole minutes: they are in one minute, and both or
// neither in its last earlyFire (one there may be early for the next).
func sameCronMinute(a, b time.Time) bool {
	ma, mb := a.Truncate(time.Minute), b.Truncate(time.Minute)
	early := func(t, m time.Time) bool { return t.Sub(m) >= time.Minute-earlyFire }
	return ma.Equal(mb) && early(a, ma) == early(b, mb)
}

// lineFireUnread reports whether this fire is a crontab line's scheduled
// fire that could not read its schedule: no --cron, --slot, --manual,
// replay or daemon slot, so fire f has no slot, of a task scan registered
// from a crontab line (lineTask).
func (l *lifecycle) lineFireUnread(f fire) bool {
	r := l.req
	return r.Schedule == nil && l.sched == nil && f.slot.IsZero() && !f.byHand && !r.Manual &&
		r.Slot.IsZero() && r.ReplaySlot.IsZero() && r.FireSlot.IsZero() && lineTask(l.m, r.Task)
}

// lineMarkSuffix names, after a task's name in the lock directory, the
// file that says the task is a crontab line's: scan leaves it as it
// registers the line, and so does each fire of a task registered from a
// line that reads the ledger (markLineTask: a line root's scan registered
// for its user gets it from the user's own fires). A fire that cannot read the ledger
// cannot read whether its task has a line either, and applies the line's
// twin rule (lineTwinOf) only to a task so marked: a task run ad hoc, with
// no line, has none, and two runs of it in a minute both run, as they do
// with the ledger reachable (each stands for no slot). A mark outlives its
// line (a line removed, a task forgotten): the rule then still holds for
// runs of that name without --manual, which its message names.
const lineMarkSuffix = ".line"

// markLineTask leaves task's mark (lineMarkSuffix) in m's lock directory,
// as openLockFile makes a lock file (the directory and the file this
// user's own, no symlink). Best effort: without it, a twin runs.
func markLineTask(m Machine, task string) {
	if _, err := os.Lstat(filepath.Join(m.LockDir, task+lineMarkSuffix)); err == nil {
		return
	}
	if f, err := openLockFile(m.LockDir, task, lineMarkSuffix, m.UID); err == nil {
		f.f.Close()
	}
}

// lineTask reports whether task carries its mark of a crontab line's task
// in m's lock directory, a file of this user's own (markLineTask).
func lineTask(m Machine, task string) bool {
	path := filepath.Join(m.LockDir, task+lineMarkSuffix)
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && filetrust.Private("line mark "+path, path, fi, m.UID) == nil
}
