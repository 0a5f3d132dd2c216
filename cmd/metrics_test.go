package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

func sampleMetrics() []catchup.TaskMetrics {
	at := time.Date(2026, 11, 20, 2, 0, 5, 0, time.UTC)
	code := 3
	return []catchup.TaskMetrics{
		{Task: "settle", Latest: &store.Run{Status: store.StatusFailed, StartedAt: at, EndedAt: at.Add(1500 * time.Millisecond),
			ExitCode: &code}, Counts: map[string]int64{"succeeded": 10, "failed": 1}, Missed: 2,
			Causes: map[string]int{catchup.CauseHostDown: 2}, Expired: map[string]int64{store.ReasonMaxAge: 3},
			LastFailure: at.Add(1500 * time.Millisecond)},
		{Task: "backup", Latest: &store.Run{Status: store.StatusRunning, StartedAt: at}, Counts: map[string]int64{"running": 1},
			Running: true, RunningFor: 90 * time.Second},
		{Task: "never-ran", ClockAhead: 90 * time.Second},
		{Task: "broken", BadSchedule: true},
		{Task: "old", Latest: &store.Run{Status: store.StatusFailed, StartedAt: at, EndedAt: at.Add(time.Second), ExitCode: &code},
			Counts: map[string]int64{"failed": 1}, LastFailure: at.Add(time.Second), Retired: true},
	}
}

// TestMetricsLint runs promtool's lint rules (client_golang's promlint)
// over the exposition.
func TestMetricsLint(t *testing.T) {
	problems, err := promlint.NewWithMetricFamilies(metricFamilies(sampleMetrics())).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

func TestMetricsValues(t *testing.T) {
	var out bytes.Buffer
	if err := writeMetrics(&out, metricFamilies(sampleMetrics())); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`catchup_last_run_status{status="failed",task="settle"} 1`,
		`catchup_last_run_status{status="succeeded",task="settle"} 0`,
		`catchup_last_run_exit_code{task="settle"} 3`,
		`catchup_last_run_duration_seconds{task="settle"} 1.5`,
		`catchup_last_run_start_timestamp_seconds{task="settle"} 1.795140005e+09`,
		`catchup_runs_total{status="succeeded",task="settle"} 10`,
		`catchup_missed_slots{cause="host-down",task="settle"} 2`,
		`catchup_missed_slots{cause="not-fired",task="settle"} 0`,
		`catchup_expired_slots_total{reason="max-age",task="settle"} 3`,
		`catchup_expired_slots_total{reason="policy",task="settle"} 0`,
		`catchup_clock_ahead_seconds{task="settle"} 0`,
		`catchup_clock_ahead_seconds{task="never-ran"} 90`,
		`catchup_running_seconds{task="backup"} 90`,
		`catchup_last_failure_timestamp_seconds{task="settle"} 1.7951400065e+09`,
		`catchup_last_failure_timestamp_seconds{task="never-ran"} 0`,
		`catchup_missed_slots{cause="host-down",task="never-ran"} 0`,
		`catchup_schedule_error{task="broken"} 1`,
		`catchup_schedule_error{task="settle"} 0`,
		`catchup_task_retired{task="old"} 1`,
		`catchup_task_retired{task="settle"} 0`,
		`catchup_runs_total{status="failed",task="old"} 1`,
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), `catchup_last_run_status{status="failed",task="old"}`) {
		t.Errorf("a retired task runs no more: its last status, an alert that never resolves, is shown:\n%s", out.String())
	}
	if strings.Contains(out.String(), `catchup_last_run_end_timestamp_seconds{task="backup"}`) {
		t.Error("a running job has no end time yet")
	}
	// A counter never goes down but by a reset: runs in progress, which
	// finish, are catchup_running_seconds, not a status of the counter.
	if strings.Contains(out.String(), `catchup_runs_total{status="running"`) {
		t.Errorf("catchup_runs_total counts runs in progress, a count that falls as they finish:\n%s", out.String())
	}
}
