package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestRunningFor(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 10, 2, 0, 3, 0, time.UTC)
	tests := map[string]struct {
		now       time.Time
		wantFor   time.Duration
		wantAhead bool
	}{
		"after its start":              {now: start.Add(10 * time.Minute), wantFor: 10 * time.Minute},
		"at its start":                 {now: start, wantFor: 0},
		"within the slack before":      {now: start.Add(-clockSlack), wantFor: 0},
		"clock went back past a slack": {now: start.Add(-time.Hour), wantFor: 0, wantAhead: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, ahead := runningFor(start, tc.now)
			if d != tc.wantFor {
				t.Errorf("for = %v, want %v", d, tc.wantFor)
			}
			if ahead.IsZero() == tc.wantAhead {
				t.Errorf("ahead = %v, want ahead %v", ahead, tc.wantAhead)
			}
			if tc.wantAhead && !ahead.Equal(start) {
				t.Errorf("ahead = %v, want the start %v", ahead, start)
			}
		})
	}
}

func TestRunningRunOfARetryInItsDelay(t *testing.T) {
	t.Parallel()
	claim := time.Date(2026, 3, 2, 2, 1, 0, 0, time.UTC)
	retry := store.Run{ID: 2, Task: "flaky", Status: store.StatusRunning, Attempt: 2, StartedAt: claim, Reason: store.ReasonRetryDelay}
	byHand := retry
	byHand.Reason = store.ReasonByHandRetryDelay
	started := retry
	started.Reason = store.RetryStarts(retry.Reason)
	tests := map[string]struct {
		run         store.Run
		now         time.Time
		wantFor     time.Duration
		wantWaiting bool
		wantWarning string // a part of it; "" for none
	}{
		"waiting in its delay":           {run: retry, now: claim.Add(45 * time.Minute), wantFor: 0, wantWaiting: true},
		"a run by hand's retry waiting":  {run: byHand, now: claim.Add(45 * time.Minute), wantFor: 0, wantWaiting: true},
		"at the longest delay":           {run: retry, now: claim.Add(maxRetryDelay), wantFor: 0, wantWaiting: true},
		"within the slack past it":       {run: retry, now: claim.Add(retryWaitLimit), wantFor: 0, wantWaiting: true},
		"past the longest delay":         {run: retry, now: claim.Add(105 * time.Minute), wantFor: 45 * time.Minute, wantWarning: "counts as running from 2026-03-02T03:01:00Z"},
		"its command started":            {run: started, now: claim.Add(45 * time.Minute), wantFor: 45 * time.Minute},
		"clock went back while it waits": {run: retry, now: claim.Add(-time.Hour), wantFor: 0, wantWaiting: true, wantWarning: "later than now"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rr := runningRun(tc.run, tc.now)
			if rr.For != tc.wantFor || rr.Waiting != tc.wantWaiting {
				t.Errorf("for = %v, waiting = %v; want %v, %v", rr.For, rr.Waiting, tc.wantFor, tc.wantWaiting)
			}
			if (tc.wantWarning == "") != (rr.Warning == "") || !strings.Contains(rr.Warning, tc.wantWarning) {
				t.Errorf("warning = %q, want one with %q", rr.Warning, tc.wantWarning)
			}
		})
	}
}
