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
	For time.Duration // how long it has run; never negative
	// ClockAhead is its start when that is later than now (by more than
	// clockSlack): the clock went back since it started, or the clock of
	// the host that started it was ahead. For is then 0. Zero: not.
	ClockAhead time.Time
	Warning    string // says so when ClockAhead is set; "" otherwise
}

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
		rr := RunningRun{Run: r}
		if rr.For, rr.ClockAhead = runningFor(r.StartedAt, now); !rr.ClockAhead.IsZero() {
			rr.Warning = fmt.Sprintf("run %d of task %s started at %s, later than now (%s): the clock went back, "+
				"or the clock of host %s was ahead when it started; it counts as running for 0s until the clock passes its start",
				r.ID, r.Task, rfc(r.StartedAt), rfc(now), r.Host)
		}
		out = append(out, rr)
	}
	return out, nil
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
