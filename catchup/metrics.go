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
	Running    bool
	RunningFor time.Duration // of its oldest run in progress
}

// Metrics gathers every task's latest run, run counts, missed slots (the
// same rule as scan) and running time. It writes nothing.
func Metrics(ctx context.Context, st store.Store, m Machine, rule MissedRule) ([]TaskMetrics, error) {
	tasks, err := List(ctx, st, m, rule)
	if err != nil {
		return nil, err
	}
	counts, err := st.StatusCounts(ctx)
	if err != nil {
		return nil, err
	}
	running, err := Running(ctx, st, m)
	if err != nil {
		return nil, err
	}
	longest := map[string]time.Duration{}
	for _, r := range running {
		if d, ok := longest[r.Run.Task]; !ok || r.For > d {
			longest[r.Run.Task] = r.For
		}
	}
	out := make([]TaskMetrics, 0, len(tasks))
	for _, t := range tasks {
		d, isRunning := longest[t.Task.Name]
		out = append(out, TaskMetrics{Task: t.Task.Name, Latest: t.Latest, Counts: counts[t.Task.Name],
			Missed: len(t.Missed), Running: isRunning, RunningFor: d})
	}
	return out, nil
}
