package catchup

import (
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// planDry is what a dry run says of the slots the real scan would replay:
// each would replay, unless its replay would not start for a refusal the
// real scan meets only as it starts one (wouldNotStart). Then each is
// reported as the real scan reports it: a crontab line that cannot be run
// fails its first slot (exit 125, nothing recorded) and leaves the later
// ones for the next scan; an argv task whose working directory is refused
// (refusedToStart) leaves them all, said once, as the real scan does.
//
// busy: a live run of the task holds the lock its replays must take
// (holdsTheLock); the first replay then finds it held, as the real scan's
// does (skipped, exit 75), and the rest wait for the next scan
// (leaveBusy). withheld is how many replays wait already, after a slot a
// live run holds (withholdAfterHeld).
func (ts *TaskScan) planDry(m Machine, t store.Task, sr *shellReplay, sched *schedule.Schedule,
	replay []time.Time, spans map[int64]replaySpan, cause func(time.Time) string, busy bool, withheld int) {
	if _, why := replayRefused(m, t, sr); why != nil && len(replay) > 0 {
		ts.leaveRefused(t.Name, why, replay, spans, true)
		return
	}
	code, reason := wouldNotStart(m, t, sr)
	for i, slot := range replay {
		if reason == "" && busy {
			ts.leaveBusy(t.Name, sched, replay, cause, withheld)
			return
		}
		if reason == "" {
			ts.Actions = append(ts.Actions, SlotAction{Slot: slot, Action: ActionPlanned, Cause: cause(slot)})
			continue
		}
		ts.Failed++
		ts.Actions = append(ts.Actions, SlotAction{Slot: slot, Action: ActionWouldFail, ExitCode: code, Reason: reason,
			Cause: cause(slot)})
		if code == ExitInternal && i < len(replay)-1 {
			ts.Left = len(replay) - i - 1
			ts.Warnings = append(ts.Warnings, fmt.Sprintf("task %s: the replay of slot %s would not start (exit %d); "+
				"its later missed slots would wait for the next scan", t.Name, formatSlot(slot, sched), ExitInternal))
			return
		}
	}
}

// wouldNotStart says why a replay of task t would not start, as the real
// scan finds it when it starts one (replayShell, lifecycle.execute): a
// crontab line that cannot be run (its crontab or the line refused now,
// the user it runs as unreadable), exit 125; an argv task's registered
// working directory refused (trustedWorkDir), exit 126 (scan and backfill
// meet that one first, refusedToStart). "": it would start.
func wouldNotStart(m Machine, t store.Task, sr *shellReplay) (code int, reason string) {
	if t.Shell != "" {
		if sr == nil {
			return ExitInternal, fmt.Sprintf("task %s has no command to replay", t.Name)
		}
		if sr.err != nil {
			return ExitInternal, sr.err.Error()
		}
		if _, err := sr.credential(); err != nil {
			return ExitInternal, err.Error()
		}
		return 0, ""
	}
	if err := trustedWorkDir(t.Dir, m.UID); err != nil {
		return 126, "not started: " + err.Error()
	}
	return 0, ""
}

// holdsTheLock reports whether the live run found running when the task
// was read (win.firstHeldBy, not stale) holds the lock a replay of the
// task must take: on a shared ledger, any host's (the fleet's task lock);
// else a run of this host's (its lock file).
func holdsTheLock(st store.Store, host string, win window) bool {
	return !win.firstHeld.IsZero() && (st.Shared() || win.firstHeldBy.Host == host)
}

// leaveBusy is a dry run's account of replays whose task's lock is held
// (holdsTheLock), as the real scan gives it: the first replay is a lock
// skip, the others wait for the next scan, said as stopsReplays says it,
// and the slots folded into them (coalesce) are left with them
// (settleFolds), not skipped.
func (ts *TaskScan) leaveBusy(task string, sched *schedule.Schedule, replay []time.Time, cause func(time.Time) string, withheld int) {
	folds := len(ts.Actions)
	ts.Actions = slices.DeleteFunc(ts.Actions, func(a SlotAction) bool { return a.Action == ActionDropped })
	folds -= len(ts.Actions)
	why := fmt.Sprintf("task %s is running (its lock is held)", task)
	ts.Skipped += 1 - folds
	ts.Actions = append(ts.Actions, SlotAction{Slot: replay[0], Action: ActionDropped, Reason: "not run: " + why,
		Cause: cause(replay[0])})
	rest := len(replay) - 1
	ts.Left += rest + folds
	if rest == 0 {
		return
	}
	shown := formatSlot(replay[0], sched)
	ts.Busy = HeldSlot{Slot: replay[0], Warning: fmt.Sprintf("%s: its later missed slots (%d) "+
		"wait for the next scan, so that none runs before slot %s", why, withheld+rest, shown)}
	ts.Warnings = append(ts.Warnings, ts.Busy.Warning)
}
