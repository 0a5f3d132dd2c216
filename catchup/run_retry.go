package catchup

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/runner"
	"github.com/catchup/catchup/store"
)

// retryHandoff is what a failed attempt with a retry due passes to it: its
// outcome, recorded by the retry's claim (one transaction), and on a shared
// ledger the task's ledger lock, handed over in that transaction, so that
// no other host's run takes the task between the two. The retry is claimed
// when its delay begins and waits it out alive (heartbeats), then its start
// is set. A stop during the delay records it interrupted, as a retry cut
// while it runs: the slot keeps the failed attempt's outcome (scan
// --retry-failed retries it), and so does catchup's result.
type retryHandoff struct {
	settle  *store.Settlement
	release func() // the failed attempt's ledger lock
	delay   time.Duration
}

// attemptOutcome is the outcome of attempt r from its command's result,
// set on r too. When catchup was told to stop (SIGINT/SIGTERM, forwarded to
// the command; stopped) and the command did not succeed, the slot did not
// finish: interrupted, and scan replays it. A command stopped because its
// run lost its lease (lost: another host took it for dead and replays its
// slot) is interrupted too, and stopped: it is not retried. A recorded and
// an unrecorded run read their attempts alike.
//
// A command that a stop kept from starting (res.Stopped) ran nothing: it is
// interrupted with no exit status, and stopped, as one the stop cut short.
func (l *lifecycle) attemptOutcome(ctx context.Context, res runner.Result, r *store.Run, lost bool) (out store.Outcome, stopped bool) {
	out = outcome(res, l.m.Now())
	stopped = ctx.Err() != nil || res.Forwarded != nil || lost || res.Stopped
	switch {
	case res.Stopped:
		out = store.Outcome{Status: store.StatusInterrupted, EndedAt: out.EndedAt, Error: errStoppedBeforeStart}
	case stopped && out.Status == store.StatusSucceeded:
	case lost:
		out.Status, out.Error = store.StatusInterrupted, "stopped: its lease was lost"
	case stopped:
		out.Status, out.Error = store.StatusInterrupted, "stopped by a signal to catchup"
	}
	r.Status, r.ExitCode, r.EndedAt, r.Signal = out.Status, out.ExitCode, out.EndedAt, out.Signal
	r.StdoutTail, r.StderrTail, r.Error = out.StdoutTail, out.StderrTail, out.Error
	return out, stopped
}

// errStoppedBeforeStart is the error of a run whose command a stop kept
// from starting.
const errStoppedBeforeStart = "stopped by a signal to catchup before its command started"

// retryNoticed is the wait before the retry of failed attempt n (its
// command's exit code exit), said on stderr.
func (l *lifecycle) retryNoticed(n, exit int) time.Duration {
	delay := retryDelay(l.req.RetryDelay, n)
	l.m.notice("task %s attempt %d failed (exit %d); retrying in %s", l.req.Task, n, exit, FormatDuration(delay))
	return delay
}

// retryDelay is the wait after failed attempt n: delay, 2x, 4x ..., capped
// at an hour; a delay of 0 retries at once.
func retryDelay(delay time.Duration, n int) time.Duration {
	for i := 1; i < n && delay > 0 && delay < maxRetryDelay; i++ {
		delay *= 2
	}
	return min(delay, maxRetryDelay)
}

// waitRetryDelay waits out a claimed retry's delay, alive (heartbeats on a
// shared ledger), and then records that it starts. Stopped meanwhile, the
// retry is recorded interrupted, and cut is true.
func (l *lifecycle) waitRetryDelay(ctx context.Context, r *store.Run, prev *retryHandoff) (cut bool) {
	delay := prev.delay
	if delay <= 0 {
		return false // it starts as claimed: no wait, no second write
	}
	held, stopBeats := l.heartbeats(ctx, r.ID)
	wait, cancel := context.WithCancel(ctx)
	context.AfterFunc(held, cancel) // a lost lease ends the wait
	waited := sleepCtx(wait, delay)
	cancel()
	stopBeats()
	lost := leaseLost(held)
	if waited && !lost {
		// The start is recorded only while the retry still runs, in one
		// statement: frozen past the lease and the delay at once, the timer
		// may have won the race with the heartbeat that would find the
		// lease lost, and a host may take the retry for dead at any moment
		// up to the start. (A ledger that does not answer is no lost lease:
		// the command runs, as a recorded fire's does.)
		started := l.m.Now()
		running, err := l.st.SetStarted(context.WithoutCancel(ctx), r.ID, started)
		if err != nil {
			l.m.notice("run %d: cannot record its start: %v (it runs)", r.ID, err)
		}
		if err != nil || running {
			r.StartedAt, r.Reason = started, store.RetryStarts(r.Reason) // as SetStarted records it
			return false
		}
		l.leaseLostNotice(r.ID)
		lost = true
	}
	why := "stopped by a signal to catchup during its retry delay"
	if lost { // taken for dead: another host replays the slot
		why = "its lease was lost during its retry delay"
	} else {
		l.retryCutNotice(r.Attempt, prev.settle.Outcome.ExitCode)
	}
	return l.cutRetry(ctx, *r, prev, why)
}

// cutRetry records retry r, which ran nothing, cut (why): interrupted with
// reason ReasonRetryCut, so that the failed attempt's outcome (prev's)
// stands, as catchup's result does.
func (l *lifecycle) cutRetry(ctx context.Context, r store.Run, prev *retryHandoff, why string) (cut bool) {
	// The failed attempt's alert runs once this fire is over: owed until
	// then, as the outcome it alerts stands from this record on.
	l.oweCutRetryAlert(r, prev.settle, why)
	l.recordOrSay(ctx, r.ID, store.Outcome{Status: store.StatusInterrupted, EndedAt: l.m.Now(),
		Error: why, Reason: store.ReasonRetryCut})
	return true
}

// retryCutNotice says on stderr that a stop during its delay cut retry
// attempt n: it ran nothing, and the failed attempt's outcome (its exit
// status exit, nil: none) stands, as catchup's exit status (its record,
// if any, says why too).
func (l *lifecycle) retryCutNotice(n int, exit *int) {
	code := ""
	if exit != nil {
		code = fmt.Sprintf(" (exit %d)", *exit)
	}
	l.m.notice("task %s: stopped during its retry delay: attempt %d not run; the failed attempt's outcome stands%s",
		l.req.Task, n, code)
}

// sleepCtx waits d; false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
