package catchup

import (
	"context"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// scanTasks scans each task (scanTask), req.Concurrency of its own tasks at
// once and, in a root scan, each other user's lines in a lane of that
// user's own (userLanes, replayLanes), and returns their reports in the
// tasks' order. On an error it returns the
// reports of the tasks before the one that failed.
func scanTasks(ctx context.Context, st store.Store, m Machine, req ScanRequest, tasks []store.Task,
	srs []*shellReplay, stale map[int64]bool, boots *bootCache) ([]TaskScan, error) {
	req.gate = &ReplayGate{Now: m.Now, Jitter: HostJitter(m.Host, req.Jitter), Budget: req.Budget, Progress: req.Progress}
	req.gate.OnJitter = func(wait time.Duration) {
		m.notice("--jitter %s: waiting %s before the first replay (this host's share, the same at every scan)",
			FormatDuration(req.Jitter), FormatDuration(wait))
	}
	var pre []scanRead
	if req.DryRun {
		var err error
		if pre, err = readForDryRun(ctx, st, m, req, tasks, stale, boots); err != nil {
			return nil, err
		}
	}
	out := make([]TaskScan, len(tasks))
	done := make([]bool, len(tasks))
	alerted := make([]bool, len(tasks)) // written before the alert's send, read after replayLanes
	lanes := userLanes(srs, len(tasks))
	alerts := startAlertQueue(lanes)
	err := replayLanes(ctx, req.Concurrency, lanes, func(ctx context.Context, i int) error {
		if ctx.Err() != nil {
			return nil // stopped by a signal: this task waits for the next scan
		}
		var read *scanRead
		if pre != nil {
			read = &pre[i]
		}
		ts, err := scanTask(ctx, st, m, req, tasks[i], srs[i], stale, boots, read)
		if err != nil && ctx.Err() == nil {
			ts.releaseOwed() // owed to the next scan, of this process too (a daemon's)
			return err
		}
		// A task scan started is alerted, also when a signal stopped it
		// (ts is then what it did before the signal): the alert is the
		// only place CATCHUP_INTERRUPTED and CATCHUP_LEFT are told.
		// It runs in the lane's alert queue, beside the next replays, on a
		// copy of ts as it is now (countLeft below adds to it).
		if !req.DryRun {
			t, as := tasks[i], ts
			as.Missed, as.Causes = slices.Clone(ts.Missed), slices.Clone(ts.Causes)
			t.NotifyCmd = "" // its command resolved: scanAlertCommand's, or none
			cmd := scanAlertCommand(m, req, tasks[i], srs[i])
			t = givenAlertAt(t, req.NotifyCmd) // scan's own, given here: run where scan runs (taskAlertDir)
			alerted[i] = true
			alerts.send(i, func() {
				var aerr error
				if req.AlertNews == nil || req.AlertNews(as) {
					aerr = alertMissed(ctx, m, cmd, t, as)
				}
				as.paidUnlessStopped(ctx, m, t.Name, aerr) // the alert of its expiries has run: owed no more
			})
		}
		if srs[i] != nil {
			// The slots its edited line left behind, recorded expired
			// (and alerted) by its registration: counted in its report,
			// not alerted again.
			ts.countLeft(srs[i].left.report)
		}
		out[i], done[i] = ts, true
		return nil
	})
	alerts.finish(alerted)
	var reps []TaskScan
	for i := range out {
		if done[i] { // the tasks scanned, in order (not those a stop or a fault left)
			reps = append(reps, out[i])
		}
	}
	return reps, err
}

// scanRead is what a dry run read of a task before scanning it: its latest
// slot of any record, and its missed slots (read) unless scanTask stops
// before them (a schedule that does not parse, a ledger ahead of the
// clock).
type scanRead struct {
	latest time.Time
	missed
	read bool
}

// readForDryRun reads, for each of tasks, what scanTask reads of it, in
// three reads of the ledger whatever the number of tasks (LatestSlots,
// then missedOfTasks'): a dry run replays nothing, so nothing it reads can
// change between its tasks.
func readForDryRun(ctx context.Context, st store.Store, m Machine, req ScanRequest, tasks []store.Task,
	stale map[int64]bool, boots *bootCache) ([]scanRead, error) {
	held, err := st.LatestSlots(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]scanRead, len(tasks))
	var asks []missedAsk
	var asked []int // the task of each ask
	for i, t := range tasks {
		out[i].latest = held[t.Name]
		sched, err := storedSchedule(m, nil, t)
		if err == nil && sched != nil && aheadOf(t, out[i].latest, m.Now()).IsZero() {
			asks, asked = append(asks, missedAsk{t: t, sched: sched}), append(asked, i)
		}
	}
	found, err := missedOfTasks(ctx, st, m, asks, req.MissedRule, stale, boots, req.notes)
	if err != nil {
		return nil, err
	}
	for k, i := range asked {
		out[i].missed, out[i].read = found[k], true
	}
	return out, nil
}
