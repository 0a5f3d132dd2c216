package catchup

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/catchup/catchup/store"
)

// ScanConfig is one `catchup scan` invocation.
type ScanConfig struct {
	Tasks      []string        // only these tasks; empty = every task with a schedule
	Crontabs   []CrontabSource // crontab files to discover catchup lines in
	Replay     string          // overrides each task's policy when set
	MaxReplays int             // per task
	DryRun     bool
	MissedRule // MaxAge, Tolerance, RetryFailed
	Progress   func(task string, done, total int)
	NotifyCmd  string // run when a task has missed slots (else the task's own --notify-cmd)
}

// CrontabSource is one crontab to read.
type CrontabSource struct {
	Name   string    // as the user gave it, for messages
	Path   string    // absolute, stored with its tasks so that later scans re-read it ("" for stdin)
	R      io.Reader // stdin's crontab; nil for a file, which scan reads itself through cron's checks (OpenCrontab)
	System bool      // R has a user field (the format of /etc/crontab, /etc/cron.d)
}

// Slot actions in a scan report.
const (
	ActionReplayed = "replayed"
	ActionFailed   = "failed"
	ActionSkipped  = "skipped"
	ActionPlanned  = "would replay"
	ActionDropped  = "would skip"
)

// SlotAction is what scan did (or would do) with one missed slot.
type SlotAction struct {
	Slot     time.Time
	Action   string
	RunID    int64
	ExitCode int
	Reason   string
}

// TaskScan is one task's part of a scan.
type TaskScan struct {
	Task     string
	Policy   string
	Missed   []time.Time
	Actions  []SlotAction
	Replayed int
	Failed   int
	Skipped  int
	Warnings []string
}

// ScanReport is the result of a scan.
type ScanReport struct {
	Tasks    []TaskScan
	Warnings []string // refused crontabs, crontab errors, unknown users, clock rollbacks
	// RefusedCrontabs counts the crontabs refused by cron's rules (none of
	// their lines ran).
	RefusedCrontabs int
}

// Failed reports whether any replay failed, or a crontab was refused.
func (r ScanReport) Failed() bool {
	if r.RefusedCrontabs > 0 {
		return true
	}
	for _, t := range r.Tasks {
		if t.Failed > 0 {
			return true
		}
	}
	return false
}

// Scan finds every missed slot of every scheduled task and replays it,
// oldest first, through the same lock-claim-execute-record path as run.
func Scan(ctx context.Context, st store.Store, m Machine, cfg ScanConfig) (rep ScanReport, err error) {
	if cfg.Replay != "" {
		if err := validatePolicy(cfg.Replay); err != nil {
			return rep, err
		}
	}
	cts := newCrontabs(m)
	defer func() {
		rep.Warnings = append(cts.warnings, rep.Warnings...)
		rep.RefusedCrontabs = cts.refused
	}()
	entries, warnings, err := cts.discover(cfg.Crontabs)
	if err != nil {
		return rep, err
	}
	rep.Warnings = append(rep.Warnings, warnings...)
	replays := map[string]*shellReplay{}
	for _, e := range entries {
		sr, warning, err := registerEntry(ctx, st, m, e, cfg.DryRun)
		if warning != "" {
			rep.Warnings = append(rep.Warnings, warning)
		}
		if err != nil {
			rep.Warnings = append(rep.Warnings, err.Error())
			continue
		}
		replays[e.Task] = sr
	}
	tasks, err := scanTargets(ctx, st, cfg.Tasks, replays)
	if err != nil {
		return rep, err
	}
	stale, err := findStale(ctx, st, m, !cfg.DryRun)
	if err != nil {
		return rep, err
	}
	for _, t := range tasks {
		sr := replays[t.Name]
		if sr == nil && t.Shell != "" {
			sr = cts.shellReplay(t)
		}
		ts, err := scanTask(ctx, st, m, cfg, t, sr, stale)
		if err != nil {
			return rep, err
		}
		if !cfg.DryRun {
			notifyMissed(ctx, m, cfg.NotifyCmd, t, ts)
		}
		rep.Tasks = append(rep.Tasks, ts)
	}
	return rep, nil
}

// scanTargets picks the tasks to scan: the named ones, else every task with
// a schedule, ordered by name.
func scanTargets(ctx context.Context, st store.Store, names []string, replays map[string]*shellReplay) ([]store.Task, error) {
	if len(names) > 0 {
		var out []store.Task
		for _, n := range names {
			t, err := st.Task(ctx, n)
			if sr := replays[n]; sr != nil {
				t, err = sr.task, nil
			}
			if err != nil {
				return nil, usagef("--task %s: unknown task: %w", n, err)
			}
			if t.Schedule == "" {
				return nil, usagef("--task %s has no schedule: register one with catchup run --cron or a crontab line", n)
			}
			out = append(out, t)
		}
		return out, nil
	}
	all, err := st.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	var out []store.Task
	for _, s := range all {
		if replays[s.Task.Name] == nil && s.Task.Schedule != "" {
			out = append(out, s.Task)
		}
	}
	for _, sr := range replays { // a dry run has not registered them
		out = append(out, sr.task)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func validatePolicy(p string) error {
	switch p {
	case "all", "latest", "none":
		return nil
	}
	return usagef("invalid replay policy %q: use all, latest or none", p)
}

// plan splits missed slots into those to replay and those to record skipped.
func plan(missed []time.Time, policy string, maxReplays int) (replay []time.Time, skip []time.Time, reason string) {
	switch policy {
	case "none":
		return nil, nil, ""
	case "latest":
		if len(missed) == 0 {
			return nil, nil, ""
		}
		return missed[len(missed)-1:], missed[:len(missed)-1], fmt.Sprintf(reasonPolicy, "latest")
	}
	if maxReplays > 0 && len(missed) > maxReplays {
		cut := len(missed) - maxReplays
		return missed[cut:], missed[:cut], fmt.Sprintf(reasonMaxReplays, maxReplays)
	}
	return missed, nil, ""
}
