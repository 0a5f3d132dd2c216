package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// The exposition is built as client_model's metric families and written by
// prometheus/common's expfmt: client_golang is not linked into catchup,
// because importing its prometheus package registers the default
// collectors in init(), which every `catchup run` would pay for
// (docs/performance.md). The output is what a client_golang registry
// gathers (TestMetricsMatchClientGolang).

// expiryReasons are the reasons a slot expires, as metrics label them.
var expiryReasons = []string{store.ReasonMaxAge, store.ReasonMaxReplays, store.ReasonPolicy, store.ReasonScheduleChanged, store.ReasonRetired}

var statuses = []string{store.StatusRunning, store.StatusSucceeded, store.StatusFailed, store.StatusTimeout,
	store.StatusInterrupted, store.StatusSkipped, store.StatusExpired, store.StatusPaused}

// finishedStatuses are the statuses catchup_runs_total counts: a run in
// progress is not one (catchup_running_seconds shows it), or the counter
// would fall each time one finished, which Prometheus reads as a reset.
var finishedStatuses = []string{store.StatusSucceeded, store.StatusFailed, store.StatusTimeout,
	store.StatusInterrupted, store.StatusSkipped, store.StatusExpired, store.StatusPaused}

// family collects one metric family's samples.
type family struct {
	mf *dto.MetricFamily
}

func newFamily(name, help string, kind dto.MetricType) *family {
	return &family{mf: &dto.MetricFamily{Name: &name, Help: &help, Type: &kind}}
}

// set adds a sample; labels are name, value pairs.
func (f *family) set(v float64, labels ...string) {
	m := &dto.Metric{}
	for i := 0; i+1 < len(labels); i += 2 {
		m.Label = append(m.Label, &dto.LabelPair{Name: &labels[i], Value: &labels[i+1]})
	}
	slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
	if f.mf.GetType() == dto.MetricType_COUNTER {
		m.Counter = &dto.Counter{Value: &v}
	} else {
		m.Gauge = &dto.Gauge{Value: &v}
	}
	f.mf.Metric = append(f.mf.Metric, m)
}

// metricFamilies turns the tasks' numbers into Prometheus metric families,
// ordered as a registry gathers them: families by name, samples by label
// values, and no family without samples.
func metricFamilies(tasks []catchup.TaskMetrics) []*dto.MetricFamily {
	gauge := func(name, help string) *family { return newFamily(name, help, dto.MetricType_GAUGE) }
	start := gauge("catchup_last_run_start_timestamp_seconds", "When the task's latest run started (Unix time).")
	end := gauge("catchup_last_run_end_timestamp_seconds", "When the task's latest run ended (Unix time); absent while it runs.")
	status := gauge("catchup_last_run_status", "1 for the status of the task's latest run, 0 for the others.")
	duration := gauge("catchup_last_run_duration_seconds", "How long the task's latest finished run took.")
	exit := gauge("catchup_last_run_exit_code", "The exit status of the task's latest finished run.")
	missed := gauge("catchup_missed_slots", "Slots of the task that scan would deal with now (replay, or record expired), by why they were missed.")
	ahead := gauge("catchup_clock_ahead_seconds", "How far the ledger holds the task ahead of the clock (a slot, watermark or registration later than now); 0 when it does not. Scan does not replay such a task: see catchup reset-clock.")
	failure := gauge("catchup_last_failure_timestamp_seconds",
		"When the task's latest failed, timed-out or interrupted run ended (Unix time), even when a later run succeeded; 0 when the ledger holds none (pruning that run lowers it).")
	running := gauge("catchup_running_seconds", "How long the task's oldest run in progress has been running (0 while its start is later than now: the clock went back); absent when none.")
	total := newFamily("catchup_runs_total",
		"Finished runs of the task recorded in the ledger, by status (pruning history lowers it).", dto.MetricType_COUNTER)
	badSchedule := gauge("catchup_schedule_error", scheduleErrorHelp)
	retired := gauge("catchup_task_retired", taskRetiredHelp)
	expired := newFamily("catchup_expired_slots_total",
		"Slots of the task that scan gave up on and recorded expired, by reason: max-age (older than the catch-up window), max-replays, policy, schedule-changed (a slot missed under the old schedule when it changed, or a dead run's slot the new one does not have), retired (a slot missed before the task's crontab or daemon line was removed, or the task was forgotten) (pruning history lowers it).",
		dto.MetricType_COUNTER)
	for _, t := range tasks {
		for _, c := range catchup.AllCauses {
			missed.set(float64(t.Causes[c]), "task", t.Task, "cause", c)
		}
		for _, r := range expiryReasons {
			expired.set(float64(t.Expired[r]), "task", t.Task, "reason", r)
		}
		ahead.set(t.ClockAhead.Seconds(), "task", t.Task)
		failure.set(unixSeconds(t.LastFailure), "task", t.Task)
		for _, s := range finishedStatuses {
			total.set(float64(t.Counts[s]), "task", t.Task, "status", s)
		}
		badSchedule.set(boolValue(t.BadSchedule), "task", t.Task)
		retired.set(boolValue(t.Retired), "task", t.Task)
		if t.Running {
			running.set(t.RunningFor.Seconds(), "task", t.Task)
		}
		r := t.Latest
		if r == nil {
			continue
		}
		start.set(float64(r.StartedAt.UnixMilli())/1000, "task", t.Task)
		for _, s := range statuses {
			if t.Retired { // it runs no more: an alert on its last status would never resolve
				break
			}
			status.set(boolValue(s == r.Status), "task", t.Task, "status", s)
		}
		if !r.EndedAt.IsZero() {
			end.set(float64(r.EndedAt.UnixMilli())/1000, "task", t.Task)
			duration.set(runDuration(*r).Seconds(), "task", t.Task)
		}
		if r.ExitCode != nil {
			exit.set(float64(*r.ExitCode), "task", t.Task)
		}
	}
	var out []*dto.MetricFamily
	for _, f := range []*family{start, end, status, duration, exit, missed, ahead, failure, running, total, expired, badSchedule, retired} {
		if len(f.mf.Metric) == 0 {
			continue
		}
		slices.SortStableFunc(f.mf.Metric, compareLabelValues)
		out = append(out, f.mf)
	}
	slices.SortFunc(out, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
	return out
}

const scheduleErrorHelp = "1 when the task's registered schedule no longer parses: its missed slots are not counted " +
	"(catchup_missed_slots reads 0) and scan does not replay them; fix: catchup run --cron with a valid schedule, or catchup forget."

const taskRetiredHelp = "1 when the task is retired (catchup forget, or its crontab line gone): no scan replays it, " +
	"and it has no catchup_last_run_status, so that an alert on its last run resolves; 0 otherwise."

// boolValue is a 0 or 1 sample.
func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// unixSeconds is t as a metric's Unix time, to the millisecond; 0 for
// the zero time.
func unixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixMilli()) / 1000
}

// compareLabelValues orders samples by their (name-sorted) label values.
func compareLabelValues(a, b *dto.Metric) int {
	for i := range min(len(a.Label), len(b.Label)) {
		if c := strings.Compare(a.Label[i].GetValue(), b.Label[i].GetValue()); c != 0 {
			return c
		}
	}
	return len(a.Label) - len(b.Label)
}

// writeMetrics writes the text exposition format.
func writeMetrics(w io.Writer, families []*dto.MetricFamily) error {
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}

// writeTextfile writes the exposition to path atomically, as
// node_exporter's textfile collector wants it: a temporary file in the same
// directory, readable by all, renamed over path. Its mode is set through
// its descriptor, never by name: in a directory another user can write,
// that user could put a symlink in its place, and a chmod by name (as root)
// would make the file it points to readable by all. A temporary file so
// replaced fails the write; nothing is renamed.
func writeTextfile(path string, families []*dto.MetricFamily) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err != nil {
		return textfileDirError(path, err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := writeMetrics(tmp, families); err != nil {
		return err
	}
	if textfileWritten != nil {
		textfileWritten(tmp.Name())
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("--textfile %s: %w", path, err)
	}
	fi, err := tmp.Stat()
	if err != nil {
		return fmt.Errorf("--textfile %s: %w", path, err)
	}
	if named, err := os.Lstat(tmp.Name()); err != nil || !os.SameFile(fi, named) {
		return fmt.Errorf("--textfile %s: its temporary file %s was replaced while it was written (by another user who can write %s?): "+
			"write the metrics into a directory only you can write, and let node_exporter read them there", path, tmp.Name(), filepath.Dir(path))
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--textfile %s: %w", path, err)
	}
	return nil
}

// textfileDirError is why no temporary file could be made beside path,
// naming the directory and the fix, not the temporary file's name (which
// the operator never chose).
func textfileDirError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	dir := filepath.Dir(path)
	return fmt.Errorf("--textfile %s: cannot write a file in %s: %w; fix: run catchup metrics as a user who can write %s, "+
		"or name a file in a directory this user can write (and point node_exporter's --collector.textfile.directory there)", path, dir, err, dir)
}

// textfileWritten, when set (tests), is called with the temporary file's
// name once the exposition is written to it, before it is given its mode.
var textfileWritten func(tmp string)
