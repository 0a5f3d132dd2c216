package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/catchup/catchup/catchup"
)

// clientGolangRegistry is how catchup built its metrics with client_golang
// before it stopped linking it (its init costs every run): the reference
// the exposition must keep matching.
func clientGolangRegistry(tasks []catchup.TaskMetrics) *prometheus.Registry {
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, append([]string{"task"}, labels...))
	}
	start := gauge("catchup_last_run_start_timestamp_seconds", "When the task's latest run started (Unix time).")
	end := gauge("catchup_last_run_end_timestamp_seconds", "When the task's latest run ended (Unix time); absent while it runs.")
	status := gauge("catchup_last_run_status", "1 for the status of the task's latest run, 0 for the others.", "status")
	duration := gauge("catchup_last_run_duration_seconds", "How long the task's latest finished run took.")
	exit := gauge("catchup_last_run_exit_code", "The exit status of the task's latest finished run.")
	missed := gauge("catchup_missed_slots", "Slots of the task that scan would deal with now (replay, or record expired), by why they were missed.", "cause")
	ahead := gauge("catchup_clock_ahead_seconds", "How far the ledger holds the task ahead of the clock (a slot, watermark or registration later than now); 0 when it does not. Scan does not replay such a task: see catchup reset-clock.")
	failure := gauge("catchup_last_failure_timestamp_seconds",
		"When the task's latest failed, timed-out or interrupted run ended (Unix time), even when a later run succeeded; 0 when the ledger holds none (pruning that run lowers it).")
	running := gauge("catchup_running_seconds", "How long the task's oldest run in progress has been running (0 while its start is later than now: the clock went back); absent when none.")
	total := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catchup_runs_total",
		Help: "Finished runs of the task recorded in the ledger, by status (pruning history lowers it)."}, []string{"task", "status"})
	badSchedule := gauge("catchup_schedule_error", scheduleErrorHelp)
	retired := gauge("catchup_task_retired", taskRetiredHelp)
	expired := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catchup_expired_slots_total",
		Help: "Slots of the task that scan gave up on and recorded expired, by reason: max-age (older than the catch-up window), max-replays, policy, schedule-changed (a slot missed under the old schedule when it changed, or a dead run's slot the new one does not have), retired (a slot missed before the task's crontab or daemon line was removed, or the task was forgotten) (pruning history lowers it)."},
		[]string{"task", "reason"})
	reg := prometheus.NewRegistry()
	reg.MustRegister(start, end, status, duration, exit, missed, ahead, failure, running, total, expired, badSchedule, retired)
	for _, t := range tasks {
		for _, c := range catchup.AllCauses {
			missed.WithLabelValues(t.Task, c).Set(float64(t.Causes[c]))
		}
		for _, r := range expiryReasons {
			expired.WithLabelValues(t.Task, r).Add(float64(t.Expired[r]))
		}
		ahead.WithLabelValues(t.Task).Set(t.ClockAhead.Seconds())
		failure.WithLabelValues(t.Task).Set(unixSeconds(t.LastFailure))
		for _, s := range finishedStatuses {
			total.WithLabelValues(t.Task, s).Add(float64(t.Counts[s]))
		}
		badSchedule.WithLabelValues(t.Task).Set(boolValue(t.BadSchedule))
		retired.WithLabelValues(t.Task).Set(boolValue(t.Retired))
		if t.Running {
			running.WithLabelValues(t.Task).Set(t.RunningFor.Seconds())
		}
		r := t.Latest
		if r == nil {
			continue
		}
		start.WithLabelValues(t.Task).Set(float64(r.StartedAt.UnixMilli()) / 1000)
		for _, s := range statuses {
			if t.Retired {
				break
			}
			v := 0.0
			if s == r.Status {
				v = 1
			}
			status.WithLabelValues(t.Task, s).Set(v)
		}
		if !r.EndedAt.IsZero() {
			end.WithLabelValues(t.Task).Set(float64(r.EndedAt.UnixMilli()) / 1000)
			duration.WithLabelValues(t.Task).Set(runDuration(*r).Seconds())
		}
		if r.ExitCode != nil {
			exit.WithLabelValues(t.Task).Set(float64(*r.ExitCode))
		}
	}
	return reg
}

// TestMetricsMatchClientGolang: the exposition, on stdout and with
// --textfile, is byte for byte what a client_golang registry writes.
func TestMetricsMatchClientGolang(t *testing.T) {
	many := sampleMetrics()
	for _, name := range []string{"zeta", "alpha", "m-1", "m-10", "m-2"} { // not in order
		m := many[0]
		m.Task = name
		many = append(many, m)
	}
	cases := map[string][]catchup.TaskMetrics{
		"sample":        sampleMetrics(),
		"many tasks":    many,
		"no task":       nil,
		"never ran":     sampleMetrics()[2:],
		"only running":  sampleMetrics()[1:2],
		"only finished": sampleMetrics()[:1],
	}
	for name, tasks := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			want := filepath.Join(dir, "want.prom")
			if err := prometheus.WriteToTextfile(want, clientGolangRegistry(tasks)); err != nil {
				t.Fatal(err)
			}
			got := filepath.Join(dir, "got.prom")
			if err := writeTextfile(got, metricFamilies(tasks)); err != nil {
				t.Fatal(err)
			}
			wantText, _ := os.ReadFile(want)
			gotText, _ := os.ReadFile(got)
			if !bytes.Equal(gotText, wantText) {
				t.Errorf("--textfile:\n%s\nclient_golang:\n%s", gotText, wantText)
			}
			var stdout bytes.Buffer
			if err := writeMetrics(&stdout, metricFamilies(tasks)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stdout.Bytes(), wantText) {
				t.Errorf("stdout:\n%s\nclient_golang:\n%s", stdout.Bytes(), wantText)
			}
			for _, p := range []string{want, got} {
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
					t.Errorf("%s: mode %v (%v), want 0644", p, fi.Mode(), err)
				}
			}
		})
	}
}
