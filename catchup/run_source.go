package catchup

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/catchup/catchup/store"
)

// runSource is the source a `catchup run --cron` registers its task with:
// "run" for root, "run:uid=N" for another user, so that a root scan knows
// the command is that user's (refusedAsRoot); RedactedMark after it when
// the stored command is redacted.
func runSource(uid int, redacted bool) string {
	s := "run"
	if uid != 0 {
		s += ":uid=" + strconv.Itoa(uid)
	}
	if redacted {
		s += RedactedMark
	}
	return s
}

// RedactedMark ends the source of a task whose command carried a secret
// (catchup/redact; for a daemon line crontab.Redacted): the ledger keeps
// that command redacted. Only a daemon, which holds its line, replays such
// a task (ScanRequest.Commands); scan and backfill leave a `run --cron`
// one, saying why.
const RedactedMark = " redacted"

// StoredRedacted reports whether t's stored command is redacted: running it
// would not run the task.
func StoredRedacted(t store.Task) bool {
	return (strings.HasPrefix(t.Source, "daemon:") || isRunSource(t.Source)) && strings.HasSuffix(t.Source, RedactedMark)
}

// Unreplayable reports whether no scan can replay t's missed slots: a
// `run --cron` task whose stored command is redacted (a daemon's own line
// is replayed by its daemon). Readers say so: ls, explain, scan --dry-run.
func Unreplayable(t store.Task) bool { return isRunSource(t.Source) && StoredRedacted(t) }

// notReplayedHere says why this scan does not replay task t: a line of a
// catchup daemon's crontab, which only a daemon holds (ScanRequest.Commands)
// with the crontab's variables (PATH=, ...) its command needs, and which the
// ledger does not keep; its stored command may be redacted too. "" otherwise.
func notReplayedHere(req ScanRequest, t store.Task) string {
	if Unreplayable(t) && req.Commands[t.Name] == nil {
		return redactedTask(t) + ": scan cannot replay its slots from the ledger; " + redactedHint
	}
	if !strings.HasPrefix(t.Source, "daemon:") || req.Commands[t.Name] != nil {
		return ""
	}
	return fmt.Sprintf("task %s is a line of a catchup daemon's crontab (%s): its slots wait for that daemon, "+
		"which holds the line and the crontab's variables", t.Name, daemonLine(t))
}

// daemonLine is the FILE:LINE of a daemon task's source.
func daemonLine(t store.Task) string {
	base, _ := splitDaemonSource(t.Source)
	return strings.TrimPrefix(base, "daemon:")
}

// redactedTask names a task whose stored command is redacted, and the
// daemon line it comes from.
func redactedTask(t store.Task) string {
	if isRunSource(t.Source) {
		return fmt.Sprintf("task %s's command (catchup run --cron) carries a secret, which the ledger keeps redacted", t.Name)
	}
	return fmt.Sprintf("task %s is a line of a catchup daemon's crontab (%s) whose command carries a secret, "+
		"which the ledger keeps redacted", t.Name, daemonLine(t))
}

// redactedHint is how to make a task with a secret on its command line
// replayable.
const redactedHint = "keep the secret out of its command line (a file the job reads: PGPASSFILE, ~/.my.cnf, " +
	"a script), and its next fire registers it replayable"

// isRunSource reports whether source is a `catchup run --cron` registration's.
func isRunSource(source string) bool {
	source = strings.TrimSuffix(source, RedactedMark)
	return source == "run" || strings.HasPrefix(source, "run:")
}

// refusedAsRoot says why a root scan or backfill does not run task t: an
// argv task that another user's `catchup run --cron` or `catchup daemon`
// registered (writing to a shared ledger root also scans) would run that
// user's command as root. That user's own scan or daemon replays it. ""
// otherwise.
func refusedAsRoot(m Machine, t store.Task) string {
	if m.UID != 0 || t.Shell != "" {
		return ""
	}
	uid, by, ok := registrant(t.Source)
	if !ok || uid == "0" {
		return ""
	}
	return fmt.Sprintf("task %s was registered by uid %s's %s: a root scan never runs another user's command as root; "+
		"its slots wait for that user's own scan or daemon", t.Name, uid, by)
}

// registrant is the uid whose `catchup run --cron` or `catchup daemon`
// registered a task from source, and which of the two: "0" for root's
// ("run", a daemon line without uid=); ok is false for any other source (a
// crontab line's, whose user its crontab tells).
func registrant(source string) (uid, by string, ok bool) {
	source = strings.TrimSuffix(source, RedactedMark)
	switch {
	case source == "run":
		return "0", "catchup run", true
	case strings.HasPrefix(source, "run:uid="):
		return strings.TrimPrefix(source, "run:uid="), "catchup run", true
	case strings.HasPrefix(source, "daemon:"):
		if i := strings.LastIndex(source, " uid="); i >= 0 {
			return source[i+len(" uid="):], "catchup daemon", true
		}
		return "0", "catchup daemon", true
	}
	return "", "", false
}

// ownNotifyCmd reports whether the --notify-cmd stored with task t is one
// a process run as uid (scan, prune, a fire's alert) may run as the task's
// alert: a root one runs none that another user's `catchup run --cron` or
// `catchup daemon` registered (that user's command, as root), as it runs
// none of their commands (refusedAsRoot), nor that of another user's
// crontab line (rootsLine): that user's own scan keeps the one its `run
// --cron` stored (registerEntry), on a ledger root shares.
func ownNotifyCmd(uid int, t store.Task) bool {
	if uid != 0 {
		return true
	}
	if strings.HasPrefix(t.Source, "crontab:") {
		return rootsLine(t)
	}
	by, _, ok := registrant(t.Source)
	return !ok || by == "0"
}

// daemonOwned refuses a `catchup run --cron` fire of a task that a catchup
// daemon's line registered, live: it would take the task over (its
// registration re-written as run's, with this line's command and schedule,
// and back at the daemon's next reload), two schedulers firing one task.
// A run by hand (no --cron), the daemon's own fires and replays, and a
// task the daemon no longer has (retired: forget, or its line removed)
// are no takeover.
func (l *lifecycle) daemonOwned() error {
	t, req := l.registered, l.req
	if t == nil || req.Schedule == nil || !req.FireSlot.IsZero() || !req.ReplaySlot.IsZero() || !strings.HasPrefix(t.Source, "daemon:") {
		return nil
	}
	return fmt.Errorf("task %s is a line of a catchup daemon's crontab (%s): a catchup run --cron of it would take it over "+
		"from the daemon; not running it (give this line its own --task; if no daemon runs that line any more, catchup forget %s first)",
		t.Name, daemonLine(*t), t.Name)
}
