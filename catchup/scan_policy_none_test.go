package catchup

import (
	"fmt"
	"testing"
	"time"
)

// A dry run says the missed slots that replay policy "none" leaves missed
// (a count and the range, with why), as no slot line names them: it said
// only "3 missed (policy none)". The real scan reads the same slots. Slots
// older than the window are expiries, not among them; another policy
// leaves none so.
func TestDryRunSaysWhatPolicyNoneLeavesMissed(t *testing.T) {
	t.Parallel()
	const why = `replay policy "none": recorded expired once older than the catch-up window (%s)`
	tests := map[string]struct {
		policy string // the task's
		replay string // scan --replay
		maxAge time.Duration
		want   StaysMissed
	}{
		"the task's policy none": {policy: "none", maxAge: DefaultMaxAge,
			want: StaysMissed{N: 5, First: hourOfMarch1(11), Last: hourOfMarch1(15), Reason: fmt.Sprintf(why, "7d")}},
		"the older ones expire": {policy: "none", maxAge: 3 * time.Hour,
			want: StaysMissed{N: 3, First: hourOfMarch1(13), Last: hourOfMarch1(15), Reason: fmt.Sprintf(why, "3h")}},
		"scan --replay none": {policy: "all", replay: "none", maxAge: 100 * time.Minute,
			want: StaysMissed{N: 2, First: hourOfMarch1(14), Last: hourOfMarch1(15), Reason: fmt.Sprintf(why, "1h40m")}},
		"one slot": {policy: "none", maxAge: time.Hour,
			want: StaysMissed{N: 1, First: hourOfMarch1(15), Last: hourOfMarch1(15), Reason: fmt.Sprintf(why, "1h")}},
		"policy all":        {policy: "all", maxAge: DefaultMaxAge},
		"policy latest":     {policy: "latest", maxAge: DefaultMaxAge},
		"policy coalesce":   {policy: "coalesce", maxAge: DefaultMaxAge},
		"scan --replay all": {policy: "none", replay: "all", maxAge: DefaultMaxAge},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newScanFixture(t, tc.policy)
			req := scanRequest()
			req.Replay, req.MaxAge, req.DryRun = tc.replay, tc.maxAge, true
			if got := f.scan(t, req).StaysMissed; got != tc.want {
				t.Fatalf("dry run: StaysMissed = %+v, want %+v", got, tc.want)
			}
			req.DryRun = false
			if got := f.scan(t, req).StaysMissed; got != tc.want {
				t.Errorf("scan: StaysMissed = %+v, want %+v (as the dry run said)", got, tc.want)
			}
		})
	}
}

// hourOfMarch1 is 2026-03-01 at hour h, UTC (newScanFixture's slots).
func hourOfMarch1(h int) time.Time { return time.Date(2026, 3, 1, h, 0, 0, 0, time.UTC) }
