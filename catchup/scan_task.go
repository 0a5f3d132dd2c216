package catchup

import (
	"context"
	"errors"
	"fmt"
	"github.com/catchup/catchup/catchup/schedule"
	"time"

	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// scanTask finds one task's missed slots and deals with them per policy.
func scanTask(ctx context.Context, st store.Store, m Machine, req ScanRequest, t store.Task,
	sr *shellReplay, stale map[int64]bool) (ts TaskScan, err error) {
	ts = TaskScan{Task: t.Name, Policy: t.Replay}
	if req.Replay != "" {
		ts.Policy = req.Replay
	}
	if ts.Policy == "" {
		ts.Policy = "all"
	}
	sched, perr := parseSchedule(t.Schedule, t.TZ)
	err = perr
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
	var win window
	if ts.Missed, win, err = missedSlots(ctx, st, m, t, sched, req.MissedRule, stale); err != nil {
		return ts, err
	}
	if !req.DryRun {
		defer func() {
			if err == nil {
				err = advanceWatermark(ctx, st, m, t, ts, win, req.MissedRule)
			}
		}()
	}
	replay, skip, reason := plan(ts.Missed, ts.Policy, req.MaxReplays)
	var span replaySpan
	if ts.Policy == "coalesce" && len(replay) > 0 {
		if span, err = coalescedSpan(ctx, st, t.Name, sched, ts.Missed); err != nil {
			return ts, err
		}
		reason = fmt.Sprintf(reasonCoalesced, formatSlot(replay[0], sched))
	}
	for _, slot := range skip {
		a := SlotAction{Slot: slot, Action: ActionDropped, Reason: reason}
		if !req.DryRun {
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
	if sr != nil && sr.err != nil && len(replay) > 0 && !req.DryRun && !errors.Is(sr.err, filetrust.ErrRefused) {
		ts.Warnings = append(ts.Warnings, sr.err.Error()) // a refused crontab was reported once already
	}
	if !req.DryRun {
		req.gate.Plan(len(replay))
	}
	for i, slot := range replay {
		if req.DryRun {
			ts.Actions = append(ts.Actions, SlotAction{Slot: slot, Action: ActionPlanned})
			continue
		}
		if !req.gate.Start(ctx, t.Name, slot) {
			if ctx.Err() == nil {
				ts.Left = len(replay) - i // the --budget is spent
			}
			break
		}
		a, err := replaySlot(ctx, st, m, t, sched, sr, slot, span)
		req.gate.Done(t.Name, slot)
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

// replaySpan is what a coalesced replay stands for: the gap after prev,
// n slots; zero for a replay of one slot.
type replaySpan struct {
	prev time.Time
	n    int
}

// coalescedSpan is the span of one replay for the whole gap missed: from
// the last slot before it whose run succeeded (so that a gap after a
// failed or coalesced run is covered too), else the slot just before it.
func coalescedSpan(ctx context.Context, st store.Store, task string, sched *schedule.Schedule, missed []time.Time) (replaySpan, error) {
	span := replaySpan{n: len(missed)}
	prev, err := st.LastSucceededSlot(ctx, task, missed[0])
	if err != nil {
		return span, err
	}
	if prev.IsZero() {
		prev, _ = sched.Prev(missed[0].Add(-time.Second))
	}
	span.prev = prev
	return span, nil
}

// watermarkHorizon: for the watermark, a slot older than this (or than the
// scan's --max-age, when larger) counts as dealt with even if it never ran,
// so that one slot lost long ago does not hold the watermark back forever.
const watermarkHorizon = 7 * 24 * time.Hour

// advanceWatermark moves the task's watermark up to the first slot this scan
// left missed (or to the end of the window it looked at), so that later
// scans and listings do not read those runs again. It never passes a slot
// that is still missed or failed and younger than the horizon, nor one that this scan
// did not look at because its --max-age was shorter than the horizon; and
// the ledger refuses to move it past a running or interrupted run.
func advanceWatermark(ctx context.Context, st store.Store, m Machine, t store.Task, ts TaskScan, win window, rule MissedRule) error {
	horizon := m.Now().Add(-max(rule.MaxAge, watermarkHorizon))
	resolved := map[int64]bool{}
	for _, a := range ts.Actions {
		// A replay that succeeded, a skip by policy or a slot found done
		// settles it; a lock skip (exit 75) leaves it missed, and a failed
		// replay may still be retried (--retry-failed): both hold it back.
		if a.Action == ActionReplayed || (a.Action == ActionSkipped && a.ExitCode != exitLocked) {
			resolved[a.Slot.Unix()] = true
		}
	}
	through := win.upTo
	for _, s := range ts.Missed {
		if !resolved[s.Unix()] && s.After(horizon) {
			through = s.Add(-time.Second)
			break
		}
	}
	if f := win.firstFailed; !f.IsZero() && f.After(horizon) && f.Add(-time.Second).Before(through) {
		// A failed slot may still be retried (scan --retry-failed).
		through = f.Add(-time.Second)
	}
	if win.after.After(t.SettledThrough) && win.after.After(horizon) {
		// This scan started above the watermark (a short --max-age): the
		// slots in between were not looked at.
		limit := horizon
		if t.SettledThrough.After(limit) {
			limit = t.SettledThrough
		}
		if through.After(limit) {
			through = limit
		}
	}
	if !through.After(t.SettledThrough) {
		return nil
	}
	return st.SetSettled(ctx, t.Name, through)
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
	case "coalesce": // the caller words the reason: it names the replayed slot
		if len(missed) == 0 {
			return nil, nil, ""
		}
		return missed[len(missed)-1:], missed[:len(missed)-1], ""
	}
	if maxReplays > 0 && len(missed) > maxReplays {
		cut := len(missed) - maxReplays
		return missed[cut:], missed[:cut], fmt.Sprintf(reasonMaxReplays, maxReplays)
	}
	return missed, nil, ""
}
