package cmd

import (
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// A run's duration is never shown negative: a ledger written before its
// end was kept at or after its start (a clock set back during the run)
// may hold an end before the start; history, show, JSON and metrics say 0.
func TestRunDurationNeverNegative(t *testing.T) {
	start := time.Date(2026, 11, 10, 2, 0, 3, 0, time.UTC)
	tests := map[string]struct {
		end      time.Time
		wantText string
		wantMS   int64
	}{
		"ended after its start":  {end: start.Add(1500 * time.Millisecond), wantText: "1.5s", wantMS: 1500},
		"ended before its start": {end: start.Add(-time.Hour), wantText: "0s", wantMS: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := store.Run{ID: 1, Task: "d", Status: store.StatusSucceeded, StartedAt: start, EndedAt: tc.end}
			if got := durationText(r, false); got != tc.wantText {
				t.Errorf("durationText = %q, want %q", got, tc.wantText)
			}
			if j := toRunJSON(r, time.Now()); j.DurationMS == nil || *j.DurationMS != tc.wantMS {
				t.Errorf("duration_ms = %v, want %d", j.DurationMS, tc.wantMS)
			}
			fams := metricFamilies([]catchup.TaskMetrics{{Task: "d", Latest: &r}})
			for _, f := range fams {
				if f.GetName() == "catchup_last_run_duration_seconds" {
					if got := f.Metric[0].GetGauge().GetValue(); got != float64(tc.wantMS)/1000 {
						t.Errorf("catchup_last_run_duration_seconds = %v, want %v", got, float64(tc.wantMS)/1000)
					}
				}
			}
		})
	}
}
