package catchup

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/runner"
	"github.com/catchup/catchup/store"
)

// notifyTailMax bounds CATCHUP_STDERR_TAIL (environment space is limited).
const notifyTailMax = 8 << 10

// notifyTimeout bounds a --notify-cmd: an alert must never hold catchup.
const notifyTimeout = 30 * time.Second

// started sends the monitor's start ping, in the background.
func (l *lifecycle) started(ctx context.Context) {
	if l.cfg.Ping == "" {
		return
	}
	l.pinger = NewPinger(l.cfg.Ping, l.m.Notice)
	l.pingStarted = l.pinger.Start(context.WithoutCancel(ctx))
}

// finished runs the hooks of a run's final attempt: the end ping, and the
// --notify-cmd when it did not succeed. Neither changes the exit status.
func (l *lifecycle) finished(ctx context.Context, res RunResult) {
	ctx = context.WithoutCancel(ctx)
	if l.pinger != nil && res.Ran {
		<-l.pingStarted
		l.pinger.End(ctx, res.ExitCode, append(append([]byte{}, res.Run.StdoutTail...), res.Run.StderrTail...))
	}
	switch res.Run.Status {
	case store.StatusFailed, store.StatusTimeout, store.StatusInterrupted:
		if l.cfg.NotifyCmd != "" {
			l.notify(ctx, res.Run)
		}
	}
}

// notify runs --notify-cmd through sh -c with the run's CATCHUP_*
// variables and its outcome. Its own failure is reported, nothing more.
func (l *lifecycle) notify(ctx context.Context, r store.Run) {
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
	runNotifyCmd(ctx, l.m, l.cfg.NotifyCmd, env)
}

// runNotifyCmd runs an alert command; its output goes to catchup's stderr.
func runNotifyCmd(ctx context.Context, m Machine, cmd string, env []string) {
	res, err := runner.Run(ctx, runner.Config{Argv: []string{"/bin/sh", "-c", cmd}, Env: env,
		Stdout: m.Stderr, Stderr: m.Stderr, Timeout: notifyTimeout, KillAfter: time.Second})
	switch {
	case err != nil:
		m.notice("notify command: %v", err)
	case res.TimedOut:
		m.notice("notify command timed out after %s", notifyTimeout)
	case res.ExitCode != 0:
		m.notice("notify command failed with exit %d (the job's status is unchanged)", res.ExitCode)
	}
}
