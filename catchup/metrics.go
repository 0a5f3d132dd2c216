package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// TaskMetrics is one task's numbers for `catchup metrics`.
type TaskMetrics struct {
	Task       string
	Latest     *store.Run       // nil when it never ran
	Counts     map[string]int64 // runs by status
	Missed     int
	Causes     map[string]int   // missed slots by cause
	Expired    map[string]int64 // expired records by reason code
	ClockAhead time.Duration    // how far the ledger holds the task ahead of now (0: not)
	Running    bool
	RunningFor time.Duration // of its oldest run in progress (RunningRun.For: 0 for a retry waiting out its delay)
	// LastFailure is when its latest failed, timed-out or interrupted run
	// ended, even when a later run is its latest (zero: none in the ledger).
	LastFailure time.Time
	// BadSchedule: its registered schedule no longer parses, so its missed
	// slots cannot be counted (Missed is 0) and scan does not replay them.
	BadSchedule bool
	// Retired: the task is retired (catchup forget, or scan found its
	// crontab line gone): it runs no more, so metrics give its latest run
	// no status to alert on.
	Retired bool
}

// Metrics gathers every task's latest run, run counts, missed slots (the
// same rule as scan) by cause, expired slots by reason, running time, and
// when its latest failure ended.
// It writes nothing.
func Metrics(ctx context.Context, st store.Store, m Machine, rule MissedRule) ([]TaskMetrics, error) {
	tasks, err := List(ctx, st, m, ListRequest{Rule: rule, Counts: CountsAll})
	if err != nil {
		return nil, err
	}
	expired, err := st.ExpiredCounts(ctx)
	if err != nil {
		return nil, err
	}
	failures, err := st.LastFailures(ctx)
	if err != nil {
		return nil, err
	}
	running, ended, err := runningAndEnded(ctx, st, m)
	if err != nil {
		return nil, err
	}
	longest := map[string]time.Duration{}
	for _, r := range running {
		if d, ok := longest[r.Run.Task]; !ok || r.For > d {
			longest[r.Run.Task] = r.For
		}
	}
	now := m.Now()
	for i := range tasks {
		countEnded(&tasks[i], failures, ended[tasks[i].Task.Name])
	}
	out := make([]TaskMetrics, 0, len(tasks))
	for _, t := range tasks {
		d, isRunning := longest[t.Task.Name]
		tm := TaskMetrics{Task: t.Task.Name, Latest: t.Latest, Counts: t.Counts, Missed: len(t.Missed),
			Causes: map[string]int{}, Expired: expired[t.Task.Name], Running: isRunning, RunningFor: d,
			LastFailure: notedFailure(t.Latest, failures[t.Task.Name]), BadSchedule: t.BadSchedule != "", Retired: !t.Task.RetiredAt.IsZero()}
		for _, c := range t.Causes {
			tm.Causes[c]++
		}
		if !t.ClockAhead.IsZero() {
			tm.ClockAhead = t.ClockAhead.Sub(now)
		}
		out = append(out, tm)
	}
	return out, nil
}

// runningAndEnded is Running, and, by task, the running records it leaves
// out as the next scan leaves them: their process gone, interrupted (the
// end scan records, deadBy), or with the outcome noted on this host.
func runningAndEnded(ctx context.Context, st store.Store, m Machine) ([]RunningRun, map[string][]store.Run, error) {
	runs, err := st.Running(ctx)
	if err != nil {
		return nil, nil, err
	}
	stale, err := staleAmong(ctx, st, m, runs, false)
	if err != nil {
		return nil, nil, err
	}
	notes := readPendingNotes(m)
	now := m.Now()
	var live []RunningRun
	ended := map[string][]store.Run{}
	for _, r := range runs {
		if !stale[r.ID] {
			live = append(live, runningRun(r, now))
			continue
		}
		d := readAsScanWould(r, stale, notes)
		if d.Status == store.StatusRunning {
			continue
		}
		if d.EndedAt.IsZero() {
			d.EndedAt = deadBy(st, m, r)
		}
		ended[r.Task] = append(ended[r.Task], d)
	}
	return live, ended, nil
}

// countEnded counts ts's running records that ended (runningAndEnded) under
// the status history reads them with, as catchup_runs_total counts them
// once a scan records them, and a failure among them in its task's latest
// failure's end: a power cut is seen before the next scan, as history,
// ls and explain see it. A retry cut in its delay ran nothing and is no
// failure of its own (store.Store.LastFailures).
func countEnded(ts *TaskStatus, failures map[string]time.Time, ended []store.Run) {
	if len(ended) == 0 {
		return
	}
	if ts.Counts == nil {
		ts.Counts = map[string]int64{}
	}
	name := ts.Task.Name
	for _, r := range ended {
		if ts.Counts[store.StatusRunning] > 0 {
			ts.Counts[store.StatusRunning]--
		}
		ts.Counts[r.Status]++
		switch r.Status {
		case store.StatusFailed, store.StatusTimeout, store.StatusInterrupted:
			if r.Reason != store.ReasonRetryCut && r.EndedAt.After(failures[name]) {
				failures[name] = r.EndedAt
			}
		}
	}
}
