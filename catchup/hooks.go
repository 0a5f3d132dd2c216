package catchup

// The hooks that tell someone how things went: a run's monitor pings and
// its --notify-cmd, and scan's alert for a task with missed slots. None
// changes an exit status or a record.

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/notify"
	"github.com/catchup/catchup/store"
)

// notifyTailMax bounds CATCHUP_STDERR_TAIL (environment space is limited).
const notifyTailMax = 8 << 10

// started sends the monitor's start ping, in the background.
func (l *lifecycle) started(ctx context.Context) {
	if l.req.Ping == "" {
		return
	}
	l.pinger = notify.NewPinger(l.req.Ping, l.m.Notice)
	l.pinger.Start(context.WithoutCancel(ctx))
}

// finished runs the hooks of a run's final attempt, once its outcome is
// recorded and the task's lock released: the end ping, and the
// --notify-cmd when it did not succeed. Every start ping is followed by
// its end ping, with catchup's exit status: also for a command that could
// not start (126, 127).
//
// A stop (SIGINT, SIGTERM...) that comes during the end ping cuts it
// short: the outcome is recorded, and catchup exits with the job's status.
// A run that a stop has already ended still reports it, within the end
// ping's bound.
func (l *lifecycle) finished(ctx context.Context, res RunResult) {
	if l.m.BeforeHooks != nil {
		l.m.BeforeHooks(res)
	}
	if l.pinger != nil {
		pingCtx := ctx
		if ctx.Err() != nil {
			pingCtx = context.WithoutCancel(ctx)
		}
		l.pinger.End(pingCtx, res.ExitCode, append(append([]byte{}, res.Run.StdoutTail...), res.Run.StderrTail...))
	}
	var aerr error
	switch res.Run.Status {
	case store.StatusFailed, store.StatusTimeout, store.StatusInterrupted:
		if l.req.NotifyCmd != "" {
			aerr = l.alert(context.WithoutCancel(ctx), res.Run)
		}
	}
	if l.owedRun != nil && errors.Is(aerr, notify.ErrCutShort) {
		// Its command died of the stop forwarded to it: the alert never
		// got through, and stays owed to the next scan (oweRunAlert).
		l.m.notice("task %s: stopped while its alert ran: the next scan sends it", res.Run.Task)
		l.owedRun.release()
	} else {
		l.owedRun.paid(l.m) // its alert has run: owed no more (oweRunAlert)
	}
	l.owedRun = nil
}

// alert runs --notify-cmd with the run's CATCHUP_* variables and its
// outcome. The error is the alert command's, already said.
func (l *lifecycle) alert(ctx context.Context, r store.Run) error {
	tail := r.StderrTail
	if len(tail) > notifyTailMax {
		tail = tail[len(tail)-notifyTailMax:]
	}
	exit := ""
	if r.ExitCode != nil {
		exit = strconv.Itoa(*r.ExitCode)
	}
	// An environment string cannot hold NUL: exec would refuse the whole
	// command, and the alert of a job that printed binary would be lost.
	env := append(l.childEnv(r), "CATCHUP_STATUS="+r.Status, "CATCHUP_EXIT_CODE="+exit,
		"CATCHUP_STDERR_TAIL="+strings.ReplaceAll(string(tail), "\x00", "\uFFFD"))
	return runAlertAs(ctx, l.m, l.alertDir(), l.req.NotifyCmd, env, "", " (the job's status is unchanged)")
}

// alertDir is whom, and where, the alert runs: where its job ran, as
// cron's catchup run runs both in the line's home. A run in a directory
// of the ledger's (a daemon fire in its line's home, a replay in the
// registered directory) alerts there while it is still trusted (a
// directory gone or refused since: in this process's, never lost); a run
// in this process's directory, there.
func (l *lifecycle) alertDir() notify.As {
	as := l.alertAs
	if as.Dir == "" && as.Cred == nil && l.req.DirFromLedger && l.req.Dir != "" &&
		trustedWorkDir(l.req.Dir, l.m.UID) == nil {
		as.Dir = l.req.Dir
	}
	return as
}

// alertMissed runs scan's --notify-cmd (or the task's own) once for a task
// whose missed slots scan found, with CATCHUP_STATUS=missed, the slots and
// their causes, and how many it replayed, failed, skipped, interrupted,
// expired (with the expired slots) and left for the next scan. A scan
// being stopped still alerts, within stoppedAlertBound (alertContext). Its lists are bounded (alertList): the alert of the
// longest outage still starts.
func alertMissed(ctx context.Context, m Machine, cmd string, t store.Task, ts TaskScan) error {
	cmd = alertCommand(m, cmd, t)
	if cmd == "" || len(ts.Missed) == 0 {
		return nil
	}
	expired := make([]int64, 0, ts.Expired) // Unix seconds: a gap of a year's half a million in 4 MB
	for a := range ts.SlotActions() {
		if a.Action == ActionExpired {
			expired = append(expired, a.Slot.Unix())
		}
	}
	// Oldest first, whatever recorded them (the window's expiries, the old
	// schedule's given back).
	slices.Sort(expired)
	missedAt := func(i int) time.Time { return ts.Missed[i] }
	expiredAt := func(i int) time.Time { return time.Unix(expired[i], 0) }
	env := append(jobEnviron(m),
		"CATCHUP_TASK="+t.Name, "CATCHUP_DB="+store.WithoutPassword(m.DB), "CATCHUP_STATUS=missed",
		"CATCHUP_MISSED="+strconv.Itoa(len(ts.Missed)), "CATCHUP_MISSED_SLOTS="+alertSlots(len(ts.Missed), missedAt),
		"CATCHUP_REPLAYED="+strconv.Itoa(ts.Replayed), "CATCHUP_FAILED="+strconv.Itoa(ts.Failed),
		"CATCHUP_SKIPPED="+strconv.Itoa(ts.Skipped), "CATCHUP_INTERRUPTED="+strconv.Itoa(ts.Interrupted), "CATCHUP_LEFT="+strconv.Itoa(ts.Left),
		"CATCHUP_POLICY="+ts.Policy,
		"CATCHUP_MISSED_CAUSES="+alertList(ts.Causes), "CATCHUP_EXPIRED="+strconv.Itoa(ts.Expired),
		"CATCHUP_EXPIRED_SLOTS="+alertSlots(len(expired), expiredAt))
	actx, cancel := alertContext(ctx)
	defer cancel()
	return runAlertAs(actx, m, taskAlertDir(m, t), cmd, env, "task "+t.Name+"'s missed-slot alert: ", " (its slots stay as recorded)")
}

// taskAlertDir is where an alert of task t runs outside its own run (scan's
// missed-slot alert, prune's, a schedule change's or retirement's, an
// owed one paid later): where its job runs, its registered directory (a
// daemon line's home, a crontab line's, a fire's), while it is trusted as a
// replay's directory is; else this process's, never lost. The callers
// clear t.Dir for a command given to this process (scan's, prune's or a
// fire's own --notify-cmd): its relative paths are this process's. It
// runs as this process's user, as it always did.
func taskAlertDir(m Machine, t store.Task) notify.As {
	if t.Dir != "" && trustedWorkDir(t.Dir, m.UID) == nil {
		return notify.As{Dir: t.Dir}
	}
	return notify.As{}
}

// alertCommand is the command a task's missed-slot alert runs: cmd, else
// the task's own ("" for none).
func alertCommand(m Machine, cmd string, t store.Task) string {
	if cmd == "" && ownNotifyCmd(m.UID, t) {
		cmd = storedNotify(t) // never a masked one, nor another user's as root
	}
	return cmd
}

// scanAlertCommand is the command scan's alert of task t (replayed
// through sr) runs ("" for none): never the stored alert of another user's
// line.
func scanAlertCommand(m Machine, req ScanRequest, t store.Task, sr *shellReplay) string {
	t = withCommand(t, req)
	if sr != nil && sr.as != nil {
		t.NotifyCmd = "" // another user's line: never its alert as this scan's user
	}
	return alertCommand(m, req.NotifyCmd, t)
}

// alertExpired runs the task's missed-slot alert (alertMissed) for the
// slots ts recorded expired, as its missed slots: what prune and a
// schedule change or retirement record, outside a scan. The error is the
// alert command's, already said.
func alertExpired(ctx context.Context, m Machine, cmd string, t store.Task, ts TaskScan) error {
	for a := range ts.SlotActions() {
		if a.Action == ActionExpired {
			ts.Missed, ts.Causes = append(ts.Missed, a.Slot), append(ts.Causes, a.Cause)
		}
	}
	return alertMissed(ctx, m, cmd, t, ts)
}

// runAlertAs runs an alert command as as says (where its job runs:
// taskAlertDir, lifecycle.alertDir; as another user: root paying the
// alert another user's fire owes, usersOwedAlerts), its output on
// catchup's stderr; its own failure is reported, between what and so
// (what the alert was for, what stays as it was), nothing more, and
// returned.
func runAlertAs(ctx context.Context, m Machine, as notify.As, cmd string, env []string, what, so string) error {
	err := notify.CommandAs(ctx, cmd, env, m.Stderr, m.AlertSignals, as, m.Stop) // Stop: as a job's runner tells it
	if err != nil {
		m.notice("%s%v%s", what, err, so)
	}
	return err
}
