package catchup

import (
	"context"

	"github.com/catchup/catchup/store"
)

// attemptsUnrecorded runs fire fr's attempts while the ledger cannot
// record them, from attempt r, as run's loop runs a recorded fire's: the
// start ping (unless an earlier, recorded attempt sent it), then the
// attempts, a failed or timed-out one retried within --retries. The fire
// leaves one note, with its last attempt's outcome: a note stands for its
// slot once (scan records each note as one run of it), however many
// attempts ran. The caller releases the lock, then runs the hooks
// (finished) with the result, as for a recorded run: the run reports with
// CATCHUP_RUN_ID 0 (not in the ledger) unless it was claimed.
func (l *lifecycle) attemptsUnrecorded(ctx context.Context, lock *taskLock, fr fire, r store.Run, cause error) RunResult {
	if l.pinger == nil {
		l.started(ctx)
	}
	start := l.m.Now()
	var res RunResult
	var out store.Outcome
	for {
		last := l.execute(ctx, context.WithoutCancel(ctx), lock, r)
		if last.Stopped && r.Attempt > 1 {
			break // a retry a stop kept from starting: the outcome is the failed attempt's
		}
		var stopped bool
		out, stopped = l.attemptOutcome(ctx, last, &r, false)
		res = RunResult{ExitCode: last.ExitCode, Run: r, Ran: last.Started, Stopped: last.Stopped}
		if out.Status == store.StatusSucceeded || !last.Started || stopped || r.Attempt > l.req.Retries {
			break
		}
		if !sleepCtx(ctx, l.retryNoticed(r.Attempt, last.ExitCode)) {
			l.retryCutNotice(r.Attempt+1, exitCodePtr(last.ExitCode))
			break // stopped before the retry ran: the outcome is the failed attempt's
		}
		r = store.Run{ID: r.ID, Task: r.Task, Slot: r.Slot, Trigger: store.TriggerRetry, Attempt: r.Attempt + 1,
			StartedAt: l.m.Now(), Host: r.Host, PID: r.PID, BootID: r.BootID, Reason: r.Reason}
	}
	l.spoolFire(fr, &ranUnrecorded{start, out}, cause)
	return res
}
