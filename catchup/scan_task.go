package catchup

import (
	"context"
	"fmt"

	"github.com/catchup/catchup/store"
)

// scanTask finds one task's missed slots and deals with them per policy.
func scanTask(ctx context.Context, st store.Store, m Machine, cfg ScanConfig, t store.Task,
	sr *shellReplay, stale map[int64]bool) (TaskScan, error) {
	ts := TaskScan{Task: t.Name, Policy: t.Replay}
	if cfg.Replay != "" {
		ts.Policy = cfg.Replay
	}
	if ts.Policy == "" {
		ts.Policy = "all"
	}
	sched, err := parseTaskSchedule(t.Schedule, t.TZ)
	if err != nil {
		ts.Warnings = append(ts.Warnings, fmt.Sprintf("task %s: bad schedule %q: %v", t.Name, t.Schedule, err))
		return ts, nil
	}
	latest, err := st.LatestSlot(ctx, t.Name)
	if err != nil {
		return ts, err
	}
	if now := m.Now(); latest.After(now) {
		ts.Warnings = append(ts.Warnings, fmt.Sprintf(
			"task %s: the ledger holds slot %s, later than now (%s): the clock went back; not replaying",
			t.Name, formatSlot(latest, sched), formatSlot(now, sched)))
		return ts, nil
	}
	if ts.Missed, err = missedSlots(ctx, st, m, t, sched, cfg.MissedRule, stale); err != nil {
		return ts, err
	}
	replay, skip, reason := plan(ts.Missed, ts.Policy, cfg.MaxReplays)
	for _, slot := range skip {
		a := SlotAction{Slot: slot, Action: ActionDropped, Reason: reason}
		if !cfg.DryRun {
			a.Action = ActionSkipped
			a.RunID, err = st.AddRun(ctx, store.Run{Task: t.Name, Slot: slot, Trigger: store.TriggerReplay,
				Status: store.StatusSkipped, Attempt: 1, StartedAt: m.Now(), EndedAt: m.Now(), Host: m.Host,
				PID: m.PID, BootID: m.BootID, Error: reason})
			if err != nil {
				return ts, err
			}
		}
		ts.Skipped++
		ts.Actions = append(ts.Actions, a)
	}
	for i, slot := range replay {
		if cfg.DryRun {
			ts.Actions = append(ts.Actions, SlotAction{Slot: slot, Action: ActionPlanned})
			continue
		}
		if ctx.Err() != nil {
			break
		}
		if cfg.Progress != nil {
			cfg.Progress(t.Name, i, len(replay))
		}
		a, err := replaySlot(ctx, st, m, t, sched, sr, slot)
		if err != nil {
			return ts, err
		}
		switch a.Action {
		case ActionReplayed:
			ts.Replayed++
		case ActionFailed:
			ts.Failed++
		default:
			ts.Skipped++
		}
		ts.Actions = append(ts.Actions, a)
	}
	return ts, nil
}
