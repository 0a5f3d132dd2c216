package catchup

import (
	"testing"
	"time"
)

func TestRunningFor(t *testing.T) {
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
