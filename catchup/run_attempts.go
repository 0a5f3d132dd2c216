package catchup

import (
	"context"

	"github.com/catchup/catchup/store"
)

// attempts runs the attempts of base's slot (its retries), holding lock.
// Once the outcome is recorded the lock is let go of, unless keep (a
// replay this fire runs before its own slot: deadFirst), and the hooks run.
func (l *lifecycle) attempts(ctx context.Context, lock *taskLock, base store.Run, keep bool) (RunResult, error) {
	var res RunResult
	var err error
	var folded []int64     // by the first attempt
	var prev *retryHandoff // the failed attempt a retry follows
	for attempt := 1; ; attempt++ {
		r := base
		r.Attempt = attempt
		if attempt > 1 {
			r.Trigger = store.TriggerRetry
		}
		var done bool
		failed := res // the attempt this one retries, if any
		res, done, prev, err = l.attempt(ctx, lock, r, prev, attempt <= l.req.Retries)
		if attempt == 1 {
			folded = res.Folded
		}
		if res.cutInDelay { // stopped before the retry ran: the outcome is the failed attempt's
			res = failed
		}
		res.Folded = folded
		if err != nil || done {
			// The outcome is recorded (or spooled, or held for the next
			// replay's claim): the task is free before the hooks, so that
			// a monitor that does not answer, or a slow --notify-cmd,
			// never makes the task's next fire lock-busy.
			if !keep {
				lock.close()
			}
			l.finished(ctx, res)
			return res, err
		}
	}
}

// attempt claims and runs one attempt; done means no retry is due. prev is
// the failed attempt this one retries (nil for the first); retryDue tells
// whether a failure of this one is retried, in which case its outcome is
// not recorded here but handed to its retry (next).
func (l *lifecycle) attempt(ctx context.Context, lock *taskLock, r store.Run, prev *retryHandoff,
	retryDue bool) (res RunResult, done bool, next *retryHandoff, err error) {
	res, done, next, err = l.claimAndRun(ctx, lock, r, prev, retryDue)
	if prev != nil && prev.release != nil {
		prev.release() // the retry's claim failed or was refused: the failed attempt's lock goes
	}
	return res, done, next, err
}
