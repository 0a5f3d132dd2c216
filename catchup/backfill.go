package catchup

// Backfill: run a task's slots in a range through the run lifecycle, with
// trigger backfill, explicitly (outside the task's registration and the
// catch-up window too).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// BackfillRequest is one checked `catchup backfill`.
type BackfillRequest struct {
	Tasks       []string  // registered tasks with a schedule
	From, To    time.Time // the range, both ends included; To is not after now
	Only        string    // missing | failed | all
	Order       string    // oldest | newest
	DryRun      bool
	Concurrency int // tasks at once; a task's slots run one at a time
}

// Backfill actions.
const (
	ActionRan      = "ran"
	ActionWouldRun = "would run"
)

// TaskBackfill is one task's part of a backfill.
type TaskBackfill struct {
	Task                 string
	Slots                int // slots of the schedule in the range
	Actions              []SlotAction
	Ran, Failed, Skipped int
}

// Backfill runs the selected slots of each task in the range.
func Backfill(ctx context.Context, st store.Store, m Machine, req BackfillRequest) ([]TaskBackfill, error) {
	tasks := make([]store.Task, len(req.Tasks))
	for i, n := range req.Tasks {
		t, err := st.Task(ctx, n)
		if err != nil {
			return nil, taskLookupErr(n, err)
		}
		if t.Schedule == "" {
			return nil, fmt.Errorf("--task %s has no schedule: register one with catchup run --cron or a crontab line", n)
		}
		if w := refusedAsRoot(m, t); w != "" {
			return nil, errors.New(w)
		}
		if StoredRedacted(t) {
			return nil, errors.New(redactedDaemonTask(t) + ": backfill cannot run it; keep the secret out of the line " +
				"(PGPASSFILE, or a variable line of the crontab) to backfill it")
		}
		resolveZone(ctx, st, m, &t)
		tasks[i] = t
	}
	// The fires that ran unrecorded are done slots too: recorded first, as
	// scan records them, or backfill would run them again.
	if !req.DryRun {
		if n, err := importSpool(ctx, st, m, DefaultTolerance); err != nil {
			m.notice("%v", err)
		} else if n > 0 {
			m.notice("recorded %d fires that could not reach the ledger at the time", n)
		}
	}
	// Runs made since this point (another host's backfill, a fire) settle
	// their slot for this backfill; the newest run id marks it. A ledger
	// that cannot say leaves it to the claim.
	since := int64(0)
	if h, err := st.History(ctx, store.HistoryFilter{Limit: 1}); err == nil && len(h) > 0 {
		since = h[0].ID
	}
	cts := newCrontabs(m) // read here, one task after another: it is not for concurrent use
	srs := make([]*shellReplay, len(tasks))
	for i, t := range tasks {
		if t.Shell != "" {
			srs[i] = cts.shellReplay(t)
		}
	}
	out := make([]TaskBackfill, len(tasks))
	err := ReplayTasks(ctx, req.Concurrency, len(tasks), func(ctx context.Context, i int) error {
		var err error
		out[i], err = backfillTask(ctx, st, m, req, tasks[i], srs[i], since)
		return err
	})
	for _, w := range cts.warnings {
		m.notice("warning: %s", w)
	}
	return out, err
}

func backfillTask(ctx context.Context, st store.Store, m Machine, req BackfillRequest, t store.Task,
	sr *shellReplay, since int64) (TaskBackfill, error) {
	tb := TaskBackfill{Task: t.Name}
	sched, err := parseSchedule(t.Schedule, t.TZ)
	if err != nil {
		return tb, fmt.Errorf("task %s: bad schedule %q: %w", t.Name, t.Schedule, err)
	}
	slots, err := backfillSlots(ctx, st, t.Name, sched, req)
	if err != nil {
		return tb, err
	}
	tb.Slots = len(slots.all)
	for _, s := range slots.all {
		if !slots.chosen[s.Unix()] {
			tb.Skipped++
			tb.Actions = append(tb.Actions, SlotAction{Slot: s, Action: ActionSkipped, Reason: slots.why[s.Unix()]})
		}
	}
	pending := slots.run
	for delay := 100 * time.Millisecond; len(pending) > 0; delay = min(2*delay, 5*time.Second) {
		var busy []time.Time
		for _, s := range pending {
			if req.DryRun {
				tb.Actions = append(tb.Actions, SlotAction{Slot: s, Action: ActionWouldRun})
				continue
			}
			if ctx.Err() != nil {
				return tb, nil
			}
			a, err := backfillSlot(ctx, st, m, req, t, sched, sr, s, since)
			if err != nil {
				return tb, err
			}
			switch {
			case a.Action == ActionSkipped && a.ExitCode == exitLocked:
				busy = append(busy, s) // the task ran elsewhere: try again after the others
				continue
			case a.Action == ActionReplayed:
				a.Action = ActionRan
				tb.Ran++
			case a.Action == ActionInterrupted: // stopped with backfill: no scan replays it for backfill
				a.Action, a.Reason = ActionFailed, "stopped with the backfill; backfill it again"
				tb.Failed++
			case a.Action == ActionFailed:
				tb.Failed++
			default:
				tb.Skipped++
			}
			tb.Actions = append(tb.Actions, a)
		}
		if pending = busy; len(pending) > 0 {
			select {
			case <-ctx.Done():
				return tb, nil
			case <-time.After(delay):
			}
		}
	}
	slices.SortFunc(tb.Actions, func(a, b SlotAction) int { return a.Slot.Compare(b.Slot) })
	return tb, nil
}

// backfillSlot runs one slot as backfill's: argv tasks through the run
// lifecycle here (waiting for the task's lock on this host), crontab tasks
// through their line.
func backfillSlot(ctx context.Context, st store.Store, m Machine, req BackfillRequest, t store.Task,
	sched *schedule.Schedule, sr *shellReplay, slot time.Time, since int64) (SlotAction, error) {
	m.Stdout = m.Stderr
	force := req.Only == "all"
	if t.Shell != "" {
		return backfillShell(ctx, st, m, t, sr, slot, backfillEnv(since, force))
	}
	l := &lifecycle{st: st, m: m, sched: sched, req: RunRequest{
		Task: t.Name, ReplaySlot: slot, Backfill: true, AfterRun: since, Force: force, Wait: true,
		Argv: t.Argv, Dir: t.Dir, Retries: t.Retries, RetryDelay: t.RetryDelay, Timeout: t.Timeout,
		KillAfter: t.KillAfter, NoCapture: t.NoCapture, NotifyCmd: t.NotifyCmd, Shared: st.Shared(),
	}}
	res, err := l.run(ctx)
	if err != nil {
		return SlotAction{}, err
	}
	a := slotAction(slot, res.ExitCode, res.Skipped && res.ExitCode != exitLocked, res.Run.ID)
	if res.Skipped && res.Run.Status == store.StatusRunning {
		// Held by a run in progress on another host: tried again after the
		// others, and decided by that run's outcome, as a crontab line's.
		a.ExitCode = exitLocked
		return a, nil
	}
	if res.Skipped && res.ExitCode == 0 {
		a.Reason = "done elsewhere: " + res.Run.Status
		if res.Run.Error != "" {
			a.Reason = res.Run.Error
		}
	}
	return a, nil
}

// rangeSlots are a range's slots and which of them to run.
type rangeSlots struct {
	all, run []time.Time
	chosen   map[int64]bool
	why      map[int64]string // why a slot is not run
}

// backfillSlots lists the schedule's slots in [From, To] and picks those
// --only selects: missing (no run gave it an outcome), failed (its latest
// run failed or timed out) or all.
func backfillSlots(ctx context.Context, st store.Store, task string, sched *schedule.Schedule, req BackfillRequest) (rangeSlots, error) {
	rs := rangeSlots{chosen: map[int64]bool{}, why: map[int64]string{}}
	sched.Slots(req.From.Add(-time.Second), req.To, func(s time.Time) bool {
		rs.all = append(rs.all, s)
		return true
	})
	if len(rs.all) == 0 {
		return rs, nil
	}
	runs, err := st.SlotRuns(ctx, task, rs.all[0], rs.all[len(rs.all)-1], 0)
	if err != nil {
		return rs, err
	}
	pruned, err := st.PrunedSlots(ctx, task, rs.all[0], rs.all[len(rs.all)-1])
	if err != nil {
		return rs, err
	}
	settled, latest := map[int64]bool{}, map[int64]store.Run{}
	prunedDone := map[int64]bool{} // succeeded, the run since pruned: done all the same
	for _, s := range pruned {
		settled[s.Unix()], prunedDone[s.Unix()] = true, true
	}
	for _, r := range runs {
		if r.Slot.IsZero() {
			continue
		}
		k := r.Slot.Unix()
		if settles(r, MissedRule{}, nil) && r.Status != store.StatusRunning {
			// A run in progress has settled nothing yet: backfill waits
			// for it (the slot's lock, its claim) and goes by its outcome.
			settled[k] = true
		}
		if r.ID > latest[k].ID && !(r.Status == store.StatusSkipped && r.ExitCode != nil) {
			latest[k] = r
		}
	}
	for _, s := range rs.all {
		k := s.Unix()
		l, ran := latest[k]
		failed := ran && (l.Status == store.StatusFailed || l.Status == store.StatusTimeout)
		switch req.Only {
		case "all":
			rs.chosen[k] = true
		case "failed":
			rs.chosen[k] = failed
			if !failed {
				rs.why[k] = "not failed (--only failed)"
			}
		default:
			rs.chosen[k] = !settled[k]
			switch {
			case settled[k] && ran:
				rs.why[k] = fmt.Sprintf("already %s (run %d); --only all runs it again", l.Status, l.ID)
			case settled[k] && prunedDone[k]:
				rs.why[k] = "already succeeded (its run was pruned); --only all runs it again"
			}
		}
		if rs.chosen[k] {
			rs.run = append(rs.run, s)
		}
	}
	if req.Order == "newest" {
		slices.Reverse(rs.run)
	}
	return rs, nil
}
