package catchup

import (
	"fmt"
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
func (ts *TaskScan) planDry(m Machine, t store.Task, sr *shellReplay, sched *schedule.Schedule,
	replay []time.Time, spans map[int64]replaySpan, cause func(time.Time) string) {
	if _, why := replayRefused(m, t, sr); why != nil && len(replay) > 0 {
		ts.leaveRefused(t.Name, why, replay, spans, true)
		return
	}
	code, reason := wouldNotStart(m, t, sr)
	for i, slot := range replay {
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
