package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// scanTasks scans each task (scanTask), req.Concurrency tasks at once, and
// returns their reports in the tasks' order. On an error it returns the
// reports of the tasks before the one that failed.
func scanTasks(ctx context.Context, st store.Store, m Machine, req ScanRequest, tasks []store.Task,
	srs []*shellReplay, stale map[int64]bool, boots *bootCache) ([]TaskScan, error) {
	req.gate = &ReplayGate{Now: m.Now, Jitter: HostJitter(m.Host, req.Jitter), Budget: req.Budget, Progress: req.Progress}
	req.gate.OnJitter = func(wait time.Duration) {
		m.notice("--jitter %s: waiting %s before the first replay (this host's share, the same at every scan)",
			req.Jitter, wait)
	}
	out := make([]TaskScan, len(tasks))
	done := make([]bool, len(tasks))
	err := ReplayTasks(ctx, req.Concurrency, len(tasks), func(ctx context.Context, i int) error {
		if ctx.Err() != nil {
			return nil // stopped by a signal: this task waits for the next scan
		}
		ts, err := scanTask(ctx, st, m, req, tasks[i], srs[i], stale, boots)
		if err != nil && ctx.Err() == nil {
			return err
		}
		// A task scan started is alerted, also when a signal stopped it
		// (ts is then what it did before the signal): the alert is the
		// only place CATCHUP_INTERRUPTED and CATCHUP_LEFT are told.
		if !req.DryRun {
			alertMissed(ctx, m, req.NotifyCmd, withCommand(tasks[i], req), ts)
		}
		out[i], done[i] = ts, true
		return nil
	})
	var reps []TaskScan
	for i := range out {
		if !done[i] {
			if ctx.Err() != nil {
				continue // stopped: the tasks scanned, in order
			}
			break
		}
		reps = append(reps, out[i])
	}
	return reps, err
}
