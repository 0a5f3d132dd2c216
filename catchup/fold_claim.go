package catchup

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// A coalesced replay of slot S folds the gap's older slots: it records
// them skipped (settled, no exit code) between its granted claim and its
// command's start, and is told the whole gap. The claim of a slot refuses
// only running and succeeded holders, so two checks, each made after its
// own write, keep the gap from running twice when a scan or a backfill
// claims one of its slots meanwhile:
//   - foldedMeanwhile, after a replay's or backfill's claim of slot X: a
//     fold of X recorded since (by the claim's read it is there if the fold
//     came first) gives the claim back;
//   - foldHeld, after the coalesced replay recorded its folds: a folded
//     slot another run holds (claimed first) gives the folds back, and the
//     replay's own claim (heldBack): run now, its slot would run before
//     the gap's older ones.
// Whichever write came second, its check sees the first: at most one of
// them runs the slot's interval (both may give back: the next scan replays
// what is left).

// isFold reports whether r is the record of a slot folded into a coalesced
// replay that still stands (skipped, no exit code, by a replay).
func isFold(r store.Run) bool {
	return r.Status == store.StatusSkipped && r.ExitCode == nil && r.Trigger == store.TriggerReplay
}

// foldedMeanwhile gives back a granted claim r of a slot that a coalesced
// replay folded (a plain scan or a backfill that read the slot missed
// before the fold; a run by hand with --slot, which --force makes run
// anyway): that replay, told the whole gap, stands for it, as a success
// would. Recorded skipped with exit 0, which
// settles nothing. On a local ledger only a slot that had records before
// the claim is read again: a fire's and a replay's normal path is not. A
// shared ledger's claim counts only the runs that held a slot as having
// touched it, so there the slot of every replay, backfill and run by hand
// is read again (one round trip); a cron fire's never is (scan folds only
// slots whose fire is long past).
func (l *lifecycle) foldedMeanwhile(ctx context.Context, r store.Run, touched bool) (RunResult, bool) {
	if r.Attempt != 1 || l.req.Force || (!touched && (!l.st.Shared() || r.Trigger == store.TriggerSchedule)) {
		return RunResult{}, false
	}
	runs, err := l.st.SlotRuns(ctx, r.Task, r.Slot, r.Slot, 0)
	if err != nil {
		return RunResult{}, false // the claim decides
	}
	for _, o := range runs {
		if o.ID == r.ID || !o.Slot.Equal(r.Slot) || !isFold(o) {
			continue
		}
		reason := fmt.Sprintf("%s (run %d on %s)", o.Error, o.ID, o.Host)
		l.recordOrSay(ctx, r.ID, store.Outcome{Status: store.StatusSkipped, EndedAt: l.m.Now(), ExitCode: exitCodePtr(0), Error: reason})
		anyway := ""
		if l.req.ReplaySlot.IsZero() && !l.req.Backfill {
			anyway = " (--force to run anyway)"
		}
		l.m.notice("slot %s of %s: %s; not running it again%s", formatSlot(r.Slot, l.sched), r.Task, reason, anyway)
		r.Status, r.Error = store.StatusSkipped, reason
		return RunResult{Run: r, Skipped: true}, true
	}
	return RunResult{}, false
}

// foldHeld reports which of the slots just folded (records ids) another
// run holds, running or succeeded, claimed before the folds were recorded;
// the zero time if none. A read error counts as none: the folds stand, as
// they did before this check.
func (l *lifecycle) foldHeld(ctx context.Context, ids []int64) time.Time {
	fold := l.req.Fold
	if len(fold) == 0 {
		return time.Time{}
	}
	runs, err := l.st.SlotRuns(ctx, l.req.Task, fold[0], fold[len(fold)-1], 0)
	if err != nil {
		return time.Time{}
	}
	ours := map[int64]bool{}
	for _, id := range ids {
		ours[id] = true
	}
	for _, o := range runs {
		if !ours[o.ID] && store.HoldsSlot(o, false) {
			return o.Slot
		}
	}
	return time.Time{}
}

// heldBack gives back the folds ids of this replay of slot and its own
// claim r (a lock skip: exit 75, its slot missed again), since another
// run took slot at of its gap first. That run has not run yet (this replay
// holds the task's lock) or ran without the gap's older slots: running
// slot now, for its own interval, ran it before them (two scans whose
// clocks, or tolerances, differ coalesce different latest slots). The
// next scan replays what is left, oldest first.
func (l *lifecycle) heldBack(ctx context.Context, r store.Run, at time.Time, ids []int64) (RunResult, error) {
	why := "given back with it (slot " + formatSlot(at, l.sched) + " of its gap taken by another run)"
	if err := giveBackFolds(ctx, l.st, l.m, l.req.Task, ids, why, r.Slot); err != nil {
		return RunResult{}, err
	}
	reason := fmt.Sprintf("%s: slot %s of its gap was taken by another run first", reasonGapHeld, formatSlot(at, l.sched))
	l.recordOrSay(ctx, r.ID, store.Outcome{Status: store.StatusSkipped, EndedAt: l.m.Now(), ExitCode: exitCodePtr(exitLocked), Error: reason})
	l.m.notice("slot %s of %s is held by another run: the coalesced replay of %s gives its claim back, so that no slot runs before an older one; "+
		"the gap stays missed for the next scan (exit %d)", formatSlot(at, l.sched), l.req.Task, formatSlot(r.Slot, l.sched), exitLocked)
	r.Status, r.Error = store.StatusSkipped, reason
	return RunResult{ExitCode: exitLocked, Run: r, Skipped: true}, nil
}

// reasonGapHeld is why a coalesced replay gave its claim back (heldBack).
const reasonGapHeld = "coalesced replay given back"

// foldBeforeLine records the folds of a crontab line's coalesced replay
// before the line runs, as an argv replay records its own between its
// claim and its command (the line's `catchup run` knows nothing of them),
// so that a plain scan or a backfill planning meanwhile leaves them to it
// (foldedMeanwhile). When another run holds one of them, they are given
// back and the line is not run (the span's heldAt: lineGapHeld). It returns the span
// the line is told and the folds' records (nil: none stand). A task purged
// since t was read (or purged and registered again) gets none: the error
// wraps store.ErrGone; one retired since neither: store.ErrRetired.
func foldBeforeLine(ctx context.Context, st store.Store, m Machine, t store.Task, span replaySpan) (replaySpan, []int64, error) {
	if t.Shell == "" || len(span.fold) == 0 {
		return span, nil, nil
	}
	runs := make([]store.Run, len(span.fold))
	for i, s := range span.fold {
		runs[i] = foldRecord(m, t.Name, s, span.reason)
	}
	ids, err := st.AddRunsOf(ctx, store.OfLive(t.RegisteredAt), runs) // none of a task purged or retired since the scan read it
	if err != nil {
		return span, nil, fmt.Errorf("task %s: record the slots coalesced into the replay of %s: %w", t.Name, formatSlot(span.slot, nil), err)
	}
	l := &lifecycle{st: st, m: m, req: RunRequest{Task: t.Name, Fold: span.fold}}
	if at := l.foldHeld(ctx, ids); !at.IsZero() {
		why := "given back with it (slot " + formatSlot(at, nil) + " of its gap taken by another run)"
		if err := giveBackFolds(ctx, st, m, t.Name, ids, why, span.slot); err != nil {
			return span, nil, err
		}
		return replaySpan{slot: span.slot, heldAt: at}, nil, nil
	}
	return span, ids, nil
}

// lineGapHeld is the action of a crontab line's coalesced replay of slot
// that scan does not run, since another run took slot at of its gap first
// (foldBeforeLine): run, its slot would run before the gap's older ones.
// Its slot stays missed, as a lock skip's (heldBack, for an argv replay).
func lineGapHeld(m Machine, task string, sched *schedule.Schedule, slot, at time.Time) SlotAction {
	reason := fmt.Sprintf("%s: slot %s of its gap was taken by another run first", reasonGapHeld, formatSlot(at, sched))
	m.notice("slot %s of %s is held by another run: the coalesced replay of %s is not run, so that no slot runs before an older one; "+
		"the gap stays missed for the next scan", formatSlot(at, sched), task, formatSlot(slot, sched))
	return SlotAction{Slot: slot, Action: ActionSkipped, ExitCode: exitLocked, Reason: reason, lockSkipped: true}
}

// fold records the slots a coalesced replay stands for besides its own,
// skipped: settled by this replay, which now runs for the whole gap.
func (l *lifecycle) fold(ctx context.Context) ([]int64, error) {
	runs := make([]store.Run, len(l.req.Fold))
	for i, s := range l.req.Fold {
		runs[i] = foldRecord(l.m, l.req.Task, s, l.req.FoldReason)
	}
	return l.st.AddRuns(ctx, runs)
}
