package catchup

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// RunningRun is a run still in progress, as `ls --running` shows it.
type RunningRun struct {
	Run store.Run
	// For is how long its command has run; never negative. A retry
	// waiting out its delay (Waiting) has run 0s.
	For time.Duration
	// ClockAhead is its start when that is later than now (by more than
	// clockSlack): the clock went back since it started, or the clock of
	// the host that started it was ahead. For is then 0. Zero: not.
	ClockAhead time.Time
	// Waiting: a retry waiting out its delay (WaitsRetryDelay), claimed
	// as its delay began no longer ago than the longest delay there is
	// (retryWaitLimit): its command has not started, and For is 0. Past
	// that it should have started, and it counts as running (Warning).
	Waiting bool
	Warning string // says why, when ClockAhead is set or a retry overstays its delay; "" otherwise
}

// retryWaitLimit is how long after its claim a retry may still wait out
// its delay: the longest delay there is, and the slack allowed to a clock
// (its start is recorded once its timer fires, a write that may take a
// moment).
const retryWaitLimit = maxRetryDelay + clockSlack

// Running lists the runs in progress, oldest first, leaving out records
// whose process is known to be gone (scan marks those interrupted).
func Running(ctx context.Context, st store.Store, m Machine) ([]RunningRun, error) {
	runs, err := st.Running(ctx)
	if err != nil {
		return nil, err
	}
	stale, err := staleAmong(ctx, st, m, runs, false)
	if err != nil {
		return nil, err
	}
	now := m.Now()
	var out []RunningRun
	for _, r := range runs {
		if stale[r.ID] {
			continue
		}
		out = append(out, runningRun(r, now))
	}
	return out, nil
}

// runningRun is running record r, alive, as of now. A retry waiting out
// its delay has run 0s: its record's start is its claim, as its delay
// began. None waits longer than an hour, so one still waiting past
// retryWaitLimit should have started its command an hour after its claim
// at the latest, and has run since then: its catchup is frozen (its lock
// held; its process gone, it is found dead and left out), or its command
// runs on a start the ledger did not take. Counted 0s, it would be stuck
// forever unseen.
func runningRun(r store.Run, now time.Time) RunningRun {
	rr := RunningRun{Run: r}
	rr.For, rr.ClockAhead = runningFor(r.StartedAt, now)
	switch {
	case !rr.ClockAhead.IsZero():
		rr.Waiting = markedRetryDelay(r)
		rr.Warning = fmt.Sprintf("run %d of task %s started at %s, later than now (%s): the clock went back, "+
			"or the clock of host %s was ahead when it started; it counts as running for 0s until the clock passes its start",
			r.ID, r.Task, rfc(r.StartedAt), rfc(now), r.Host)
	case WaitsRetryDelay(r, now):
		rr.For, rr.Waiting = 0, true
	case markedRetryDelay(r):
		due := r.StartedAt.Add(maxRetryDelay)
		rr.Warning = fmt.Sprintf("run %d of task %s was %s; it counts as running from %s",
			r.ID, r.Task, RetryStartOverdue(r, now), rfc(due))
		rr.For = now.Sub(due)
	}
	return rr
}

// runningFor is how long a run that started at start has run by now: never
// negative, 0 while its start is later than now. ahead is the start when it
// lies more than clockSlack later than now (a host of a fleet a few seconds
// ahead is not), else zero.
func runningFor(start, now time.Time) (d time.Duration, ahead time.Time) {
	if start.After(now.Add(clockSlack)) {
		ahead = start
	}
	return max(now.Sub(start), 0), ahead
}
