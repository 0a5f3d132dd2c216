package cmd

import (
	"io"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

type metricsConfig struct {
	textfile string
	rule     catchup.MissedRule
}

func newMetricsCmd(g *globals) *cobra.Command {
	var cfg metricsConfig
	c := &cobra.Command{
		Use:   "metrics [--textfile PATH]",
		Short: "Print Prometheus metrics per task, or write them for node_exporter's textfile collector",
		Long: `Print the Prometheus text exposition of every task: its last run's start and end
times, status, duration and exit code, its runs by status, its missed slots now (scan's
rule) by cause, its expired slots by reason, how far the ledger holds it ahead of the
clock, and how long a running job has run. With --textfile the metrics are written to
PATH atomically (a temporary file renamed over it), for node_exporter's
--collector.textfile.directory; run it from cron or a timer. Exit 0, or 2 on error.`,
		Example: `  * * * * * catchup metrics --textfile /var/lib/node_exporter/textfile/catchup.prom`,
		Args:    cobra.NoArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return runMetrics(c, g, cfg) },
	}
	c.Flags().StringVar(&cfg.textfile, "textfile", "", "write to this file atomically instead of stdout")
	addMissedFlags(c, &cfg.rule)
	return c
}

func runMetrics(c *cobra.Command, g *globals, cfg metricsConfig) error {
	if err := checkRule(c, &cfg.rule); err != nil {
		return usageErr(c, err)
	}
	st, m, err := openLedger(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	tasks, err := catchup.Metrics(c.Context(), st, m, cfg.rule)
	if err != nil {
		return failure(err)
	}
	reg := metricsRegistry(tasks)
	if cfg.textfile != "" {
		return failure(prometheus.WriteToTextfile(cfg.textfile, reg))
	}
	return failure(writeMetrics(c.OutOrStdout(), reg))
}

// expiryReasons are the reasons a slot expires, as metrics label them.
var expiryReasons = []string{store.ReasonMaxAge, store.ReasonMaxReplays, store.ReasonPolicy}

var statuses = []string{store.StatusRunning, store.StatusSucceeded, store.StatusFailed, store.StatusTimeout,
	store.StatusInterrupted, store.StatusSkipped, store.StatusExpired}

// metricsRegistry turns the tasks' numbers into Prometheus metrics.
func metricsRegistry(tasks []catchup.TaskMetrics) *prometheus.Registry {
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
	running := gauge("catchup_running_seconds", "How long the task's run in progress has been running; absent when none.")
	total := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catchup_runs_total",
		Help: "Runs of the task recorded in the ledger, by status (pruning history lowers it)."}, []string{"task", "status"})
	expired := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "catchup_expired_slots_total",
		Help: "Slots of the task that scan gave up on and recorded expired, by reason: max-age (older than the catch-up window), max-replays, policy (pruning history lowers it)."},
		[]string{"task", "reason"})
	reg := prometheus.NewRegistry()
	reg.MustRegister(start, end, status, duration, exit, missed, ahead, running, total, expired)
	for _, t := range tasks {
		for _, c := range catchup.AllCauses {
			missed.WithLabelValues(t.Task, c).Set(float64(t.Causes[c]))
		}
		for _, r := range expiryReasons {
			expired.WithLabelValues(t.Task, r).Add(float64(t.Expired[r]))
		}
		ahead.WithLabelValues(t.Task).Set(t.ClockAhead.Seconds())
		for _, s := range statuses {
			total.WithLabelValues(t.Task, s).Add(float64(t.Counts[s]))
		}
		if t.Running {
			running.WithLabelValues(t.Task).Set(t.RunningFor.Seconds())
		}
		r := t.Latest
		if r == nil {
			continue
		}
		start.WithLabelValues(t.Task).Set(float64(r.StartedAt.UnixMilli()) / 1000)
		for _, s := range statuses {
			v := 0.0
			if s == r.Status {
				v = 1
			}
			status.WithLabelValues(t.Task, s).Set(v)
		}
		if !r.EndedAt.IsZero() {
			end.WithLabelValues(t.Task).Set(float64(r.EndedAt.UnixMilli()) / 1000)
			duration.WithLabelValues(t.Task).Set(r.EndedAt.Sub(r.StartedAt).Seconds())
		}
		if r.ExitCode != nil {
			exit.WithLabelValues(t.Task).Set(float64(*r.ExitCode))
		}
	}
	return reg
}

// writeMetrics writes the text exposition format.
func writeMetrics(w io.Writer, g prometheus.Gatherer) error {
	families, err := g.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}
