package catchup

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/catchup/catchup/store"
)

// runSource is the source a `catchup run --cron` registers its task with:
// "run" for root, "run:uid=N" for another user, so that a root scan knows
// the command is that user's (refusedAsRoot).
func runSource(uid int) string {
	if uid == 0 {
		return "run"
	}
	return "run:uid=" + strconv.Itoa(uid)
}

// RedactedMark ends the source of a daemon task whose command carried a
// secret (a PostgreSQL URL's password, PGPASSWORD=, a ping token): the
// ledger keeps that command redacted (crontab.Redacted), so only its daemon,
// which holds the line, replays it (ScanRequest.Commands).
const RedactedMark = " redacted"

// StoredRedacted reports whether t's stored command is redacted: running it
// would not run the task.
func StoredRedacted(t store.Task) bool {
	return strings.HasPrefix(t.Source, "daemon:") && strings.HasSuffix(t.Source, RedactedMark)
}

// notReplayedHere says why this scan does not replay task t: a line of a
// catchup daemon's crontab, which only a daemon holds (ScanRequest.Commands)
// with the crontab's variables (PATH=, ...) its command needs, and which the
// ledger does not keep; its stored command may be redacted too. "" otherwise.
func notReplayedHere(req ScanRequest, t store.Task) string {
	if !strings.HasPrefix(t.Source, "daemon:") || req.Commands[t.Name] != nil {
		return ""
	}
	return fmt.Sprintf("task %s is a line of a catchup daemon's crontab (%s): its slots wait for that daemon, "+
		"which holds the line and the crontab's variables", t.Name, daemonLine(t))
}

// daemonLine is the FILE:LINE of a daemon task's source.
func daemonLine(t store.Task) string {
	src := strings.TrimSuffix(strings.TrimPrefix(t.Source, "daemon:"), RedactedMark)
	if i := strings.Index(src, " uid="); i >= 0 {
		src = src[:i]
	}
	return src
}

// redactedDaemonTask names a task whose stored command is redacted, and
// the daemon line it comes from.
func redactedDaemonTask(t store.Task) string {
	return fmt.Sprintf("task %s is a line of a catchup daemon's crontab (%s) whose command carries a secret, "+
		"which the ledger keeps redacted", t.Name, daemonLine(t))
}

// isRunSource reports whether source is a `catchup run --cron` registration's.
func isRunSource(source string) bool { return source == "run" || strings.HasPrefix(source, "run:") }

// refusedAsRoot says why a root scan or backfill does not run task t: an
// argv task that another user's `catchup run --cron` or `catchup daemon`
// registered (writing to a shared ledger root also scans) would run that
// user's command as root. That user's own scan or daemon replays it. ""
// otherwise.
func refusedAsRoot(m Machine, t store.Task) string {
	if m.UID != 0 || t.Shell != "" {
		return ""
	}
	v, ok := strings.CutPrefix(t.Source, "run:uid=")
	by := "catchup run"
	if !ok && strings.HasPrefix(t.Source, "daemon:") {
		if i := strings.LastIndex(t.Source, " uid="); i >= 0 {
			v, ok, by = t.Source[i+len(" uid="):], true, "catchup daemon"
			v, _, _ = strings.Cut(v, " ") // before RedactedMark
		}
	}
	if !ok {
		return ""
	}
	if uid, err := strconv.Atoi(v); err == nil && uid == 0 {
		return ""
	}
	return fmt.Sprintf("task %s was registered by uid %s's %s: a root scan never runs another user's command as root; "+
		"its slots wait for that user's own scan or daemon", t.Name, v, by)
}
