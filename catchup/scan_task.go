package catchup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// scanTask finds one task's missed slots and deals with them: the slots
// older than the task's catch-up window, and those that --replay latest or
// --max-replays drop, are recorded expired; the rest are replayed per policy
// (coalesce folds the older ones into one replay of the latest). A dry
// run passes what it read of every task at once (pre); a real scan reads
// each task as it comes to it (nil), after the replays of the tasks
// before.
func scanTask(ctx context.Context, st store.Store, m Machine, req ScanRequest, t store.Task,
	sr *shellReplay, stale map[int64]bool, boots *bootCache, pre *scanRead) (ts TaskScan, err error) {
	ts = TaskScan{Task: t.Name, Policy: t.Replay}
	if req.Replay != "" {
		ts.Policy = req.Replay
	}
	if ts.Policy == "" {
		ts.Policy = "all"
	}
	if pre == nil {
		if w, err := readAgain(ctx, st, &t); err != nil || w != "" {
			if w != "" {
				ts.Warnings = append(ts.Warnings, w)
			}
			return ts, err
		}
	}
	sched, perr := storedSchedule(m, nil, t) // its zone file as its user, as scanZoneRefusal read it
	err = perr
	if err != nil {
		ts.Warnings = append(ts.Warnings, "task "+t.Name+": "+badScheduleWarning(t, err))
		return ts, nil
	}
	var latest time.Time
	if pre != nil {
		latest = pre.latest
	} else if latest, err = st.LatestSlot(ctx, t.Name); err != nil {
		return ts, err
	}
	if ts.ClockAhead = aheadOf(t, req.notes.heldWith(latest, t, sched, req.Tolerance), m.Now()); !ts.ClockAhead.IsZero() {
		ts.AheadSaid = "task " + t.Name + ": " + clockAheadWarning(t.Name, ts.ClockAhead, m.Now(), sched) + "; not replaying"
		ts.Warnings = append(ts.Warnings, ts.AheadSaid)
		return ts, nil
	}
	var res missed
	if pre != nil && pre.read {
		res = pre.missed
	} else if res, err = missedSlots(ctx, st, m, t, sched, req.MissedRule, stale, boots, req.notes); err != nil {
		return ts, err
	}
	paused := splitPaused(t, &res)
	// Its missed slots, as every reader counts them (counted): those it
	// replays or records expired, the old schedule's owed slots too.
	ts.Missed, ts.Causes = res.counted()
	if w := refusedAsRoot(m, t); w != "" {
		ts.Warnings, ts.Left = append(ts.Warnings, w), len(ts.Missed)
		return ts, nil
	}
	if w := notReplayedHere(req, t); w != "" {
		if len(ts.Missed) == 0 && !isRunSource(t.Source) {
			return ts, nil // a daemon's line, nothing missed: nothing to say (a periodic scan stays quiet)
		}
		ts.Warnings, ts.Left = append(ts.Warnings, w), len(ts.Missed)
		if isRunSource(t.Source) {
			ts.Stuck = len(ts.Missed) // no scan holds its command: never silently
		}
		return ts, nil
	}
	// A killed coalesced replay's slot it records expired goes with its gap.
	if err := res.withExpiringDeadFolds(ctx, st, m, t, sched, req.DryRun); err != nil {
		return ts, err
	}
	ts.Missed, ts.Causes = res.counted()
	gone := false // purged or retired since readAgain (a write or a claim refused it): nothing more to write
	if !req.DryRun {
		defer func() {
			if gone {
				return
			}
			if err == nil {
				// What was settled stays settled, also when a signal cut
				// the scan short; not that of a task purged since.
				err = ts.goneAt(advanceWatermark(context.WithoutCancel(ctx), st, m, t, ts, res.win, req.MissedRule), &gone)
			}
			if kerr := keepResumedPause(context.WithoutCancel(ctx), st, t); err == nil {
				err = kerr
			}
		}()
	}
	// The writes of a task purged since readAgain (or purged and registered
	// again), or retired since, are refused in their transaction: nothing
	// of it is written back.
	if err := ts.recordPaused(ctx, st, m, t, store.OfLive(t.RegisteredAt), paused, req.DryRun); err != nil {
		return ts, ts.goneAt(err, &gone)
	}
	cause := res.causeOf // a map of half a million slots (a gap of a year) took 25 MB
	// Each a span of the rule's own slices: a gap of a year's slots are not copied.
	aged := fmt.Sprintf(reasonMaxAge, FormatDuration(catchupWindow(t, req.MissedRule)))
	expire := []expirySpan{{slots: res.slots[:res.expiring], causes: causesUpTo(res.causes, res.expiring),
		reason: aged, code: store.ReasonMaxAge}}
	inWindow := res.slots[res.expiring:]
	var replay []time.Time
	spans := map[int64]replaySpan{} // a coalesced replay's, by its slot
	var gaps []replaySpan
	if ts.Policy == "coalesce" {
		if len(inWindow) > 0 {
			if gaps, err = coalescedGaps(ctx, st, t.Name, sched, inWindow, res.slots[:res.expiring], req.notes.dividing(paused, t, sched, req.Tolerance)); err != nil {
				return ts, err
			}
		}
		for _, g := range gaps {
			replay = append(replay, g.slot) // a new slice: ts.Missed's array is not written to
			spans[g.slot.Unix()] = g
		}
	} else {
		var drop []time.Time
		var reason string
		replay, drop, reason = plan(inWindow, ts.Policy, req.MaxReplays)
		ts.StaysMissed = staysMissed(inWindow, ts.Policy, catchupWindow(t, req.MissedRule))
		code := store.ReasonMaxReplays
		if ts.Policy == "latest" {
			code = store.ReasonPolicy
		}
		// drop is the oldest slots of inWindow (plan): their causes are the first of inWindow's.
		expire = append(expire, expirySpan{slots: drop, causes: causesUpTo(res.causes[min(res.expiring, len(res.causes)):], len(drop)),
			reason: reason, code: code})
	}
	expire = append(expire, expirySpan{slots: res.offSchedule, causes: res.offCauses, code: store.ReasonScheduleChanged,
		reason: fmt.Sprintf(reasonScheduleChanged, sched.Expr(), sched.Location())})
	// Owed before the first expiry commits, paid once alerted (scanTasks), else by the next scan.
	ts.alertCmd = scanAlertCommand(m, req, t, sr)
	ts.alertAt = givenAlertAt(t, req.NotifyCmd)
	ts.owe(m, t, expire, req.DryRun)
	if err := ts.expire(ctx, st, m, t, store.OfLive(t.RegisteredAt), expire, req.DryRun); err != nil {
		return ts, ts.goneAt(err, &gone)
	}
	foldAt := make([]int, len(gaps)) // where each gap's folded slots are in ts.Actions
	for i, g := range gaps {
		foldAt[i] = len(ts.Actions)
		for _, slot := range g.fold {
			ts.Skipped++
			ts.Actions = append(ts.Actions, SlotAction{Slot: slot, Action: ActionDropped, Reason: g.reason, Cause: cause(slot)})
		}
	}
	if !req.DryRun && len(gaps) > 0 {
		defer func() { // before the watermark moves (defers run last first)
			for i, g := range gaps {
				// A gap of one slot folds nothing, but may cover failed
				// slots before it (g.covered): settled with its success too.
				if len(g.fold) == 0 && len(g.covered) == 0 || gone {
					continue
				}
				if ferr := ts.settleFolds(context.WithoutCancel(ctx), st, m, t, foldAt[i], g, res.read, req.MissedRule); ferr != nil && err == nil {
					err = ts.goneAt(ferr, &gone) // purged since: nothing more of it is written
				}
			}
		}()
	}
	if sr != nil && sr.err != nil && len(replay) > 0 && !req.DryRun && !refusedBefore(sr.err) {
		ts.Warnings = append(ts.Warnings, sr.err.Error())
	}
	ts.warnNotifyWithheld(t, len(replay), req)
	var seen os.FileInfo // the task's directory as its last check saw it: each job's start makes sure it still is
	// The replays after a slot held by a run still running: a dry run
	// leaves them too, as the real scan would.
	replay, withheld := ts.withholdAfterHeld(t.Name, m.Host, sched, replay, spans, res.win)
	if req.DryRun && withheld > 0 {
		ts.leaveFoldsAfterHeld(gaps, foldAt, res.win)
	}
	if !req.DryRun {
		var why error
		if seen, why = replayRefused(m, t, sr); why != nil && len(replay) > 0 {
			ts.leaveRefused(t.Name, why, replay, spans, false) // said once, none claimed: the next scan tries again
			replay = nil
		}
		req.gate.Plan(len(replay))
	}
	if req.Replays.Planned != nil {
		req.Replays.Planned(t.Name)
	}
	held := &heldOutcome{st: st, m: m}
	defer func() {
		if ferr := held.flush(ctx); ferr != nil && err == nil {
			err = fmt.Errorf("%w: the outcome of task %s's last replay is not recorded: %w", ErrReplayUnrecorded, t.Name, ferr)
		}
	}()
	if req.DryRun {
		ts.planDry(m, t, sr, sched, replay, spans, cause, holdsTheLock(st, m.Host, res.win), withheld)
		return ts, nil
	}
	for i, slot := range replay {
		if i > 0 && t.Shell != "" { // a line's run is another process: asked before it starts
			if w := pausedSince(ctx, st, t, slot); w != "" {
				ts.leavePaused(w, withheld+len(replay)-i)
				break
			}
		}
		if t.Shell != "" {
			lineAsRegistered(ctx, st, m, &t)
		}
		if i > 0 { // checked again: made untrusted since, the rest would be refused too
			var why error
			if seen, why = replayRefused(m, t, sr); why != nil {
				ts.leaveRefused(t.Name, why, replay[i:], spans, false) // ts.Left holds the withheld already
				break
			}
		}
		if i > 0 && req.Replays.Turn != nil && !req.Replays.Turn(ctx, t.Name) {
			ts.Left = withheld + len(replay) - i // stopped while waiting for its turn
			break
		}
		if !req.gate.Start(ctx, t.Name, slot) {
			ts.Left = withheld + len(replay) - i // the --budget is spent, or scan was stopped
			break
		}
		if req.Replays.Start != nil {
			req.Replays.Start(t.Name, slot)
		}
		span, lineFolds, err := spanOf(ctx, st, m, t, sched, slot, spans[slot.Unix()], cause(slot))
		if err != nil {
			req.gate.Done(t.Name, slot)
			return ts, ts.goneAt(err, &gone) // a line's folds refused (purged since readAgain): nothing ran
		}
		var a SlotAction
		if span.heldAt.IsZero() {
			a, err = replayAsRegistered(ctx, st, m, &t, req, sched, sr, slot, span, held, res.read, seen)
		} else {
			a = lineGapHeld(m, t.Name, sched, slot, span.heldAt)
		}
		req.gate.Done(t.Name, slot)
		if err != nil {
			return ts, err
		}
		if gone = a.gone; gone { // purged since readAgain: nothing ran, nothing of it is written back
			ts.Warnings = append(ts.Warnings, forgottenWarning(t.Name))
			break
		}
		if a.changed { // registered again, and not as a new command only: nothing ran
			if len(lineFolds) > 0 { // recorded before the line, whose claim was refused: missed again
				if err := giveBackFolds(context.WithoutCancel(ctx), st, m, t.Name, lineFolds, "without running for the gap", slot); err != nil {
					return ts, err
				}
			}
			ts.leaveChanged(t.Name, withheld+len(replay)-i, foldedInto(replay[i:], spans))
			break
		}
		if a.paused { // paused since the scan read it: its claim refused the slot, nothing ran
			w := pausedSince(ctx, st, t, slot)
			if w == "" { // resumed again meanwhile
				w = fmt.Sprintf("task %s was paused during this scan's replays", t.Name)
			}
			ts.leavePaused(w, withheld+len(replay)-i)
			break
		}
		if err := a.foldsAfter(context.WithoutCancel(ctx), st, m, &ts, span, lineFolds); err != nil {
			return ts, err
		}
		if req.Replays.End != nil {
			// Told once recorded (the daemon logs it done): held for the
			// next claim, it waited behind the daemon's other writes, and a
			// power cut then left a run logged done for the next start to
			// find dead and run again.
			ferr := held.flush(ctx)
			req.Replays.End(t.Name, a)
			if ferr != nil {
				return ts, fmt.Errorf("%w: the outcome of task %s's replay of %s is not recorded: %w", ErrReplayUnrecorded, t.Name,
					slot.Format(time.RFC3339), ferr)
			}
		}
		a.Cause = cause(slot)
		if a.retired && a.givenUp == nil { // not run, nor given up: the watermark stays below it
			a.Action, a.held, a.Reason = ActionSkipped, true, reasonRetiredSince
		}
		switch a.Action {
		case ActionReplayed:
			ts.Replayed++
		case ActionFailed:
			ts.Failed++
		case ActionInterrupted:
			ts.Interrupted++
		default:
			ts.Skipped++
		}
		ts.Actions = append(ts.Actions, a)
		if a.retired { // its claim refused: a replay is no fire (T1), nothing more of it runs
			// Its later slots are not left for the next scan: none
			// replays a retired task (as for one purged meanwhile). Its
			// folds are still given back (a coalesced line's gap recorded
			// expired with its slot: forget_during_line_replay).
			ts.Warnings = append(ts.Warnings, retiredWarning(t.Name))
			break
		}
		if i < len(replay)-1 && ts.stopsReplays(a, t.Name, m.Host, slot, sched, withheld+len(replay)-i-1) {
			break
		}
	}
	ts.sayRanMeanwhile(m, t.Name)
	return ts, nil
}

// refusedBefore reports whether a replay's error is a refusal that Scan
// reported once already, for the whole scan: a refused crontab, or a
// refused line.
func refusedBefore(err error) bool {
	return errors.Is(err, filetrust.ErrRefused) || errors.Is(err, ErrLineRefused)
}
