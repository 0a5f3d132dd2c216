package catchup

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/catchup/catchup/store"
)

// refusedToStart is why no replay of task t can start in this scan, for a
// reason that is the task's, not a slot's: the working directory an argv
// task registered, refused (trustedWorkDir). Checked once, before any of
// its slots is claimed, and again before each later one; seen is the
// directory as the check saw it, which each job's start makes sure it
// still is (lifecycle.execute, stillSeen: one stat, the full check only
// if it changed). nil: its replays may start.
//
// A crontab line's refusals of the same kind (its crontab or the line
// refused now, the user it runs as unreadable: shellReplay.err,
// credential) fail its first replay with exit 125, recording nothing, and
// stopsReplays leaves the later slots for the next scan. A command not
// found or not executable (126, 127) is not known before the job is
// started: the runner's exec fails, and that run is recorded failed, as a
// job that exits so is.
func refusedToStart(m Machine, t store.Task) (seen os.FileInfo, why error) {
	if t.Shell != "" {
		return nil, nil
	}
	seen, why = checkedWorkDir(t.Dir, m.UID)
	if strings.HasPrefix(t.Source, "daemon:") {
		why = lineHomeFix(why)
	}
	return seen, why
}

// StartRefused is why no replay of task t can start here now
// (refusedToStart: its working directory refused), nil when one may:
// nothing records it of the slots it leaves (a scan's replays, a daemon
// line's fires), so ls --missed and explain check it when they read them.
func StartRefused(m Machine, t store.Task) error {
	_, why := refusedToStart(m, t)
	return why
}

// leaveRefused leaves the slots of task it would replay (replay, and the
// slots a coalesced replay would fold: spans) missed, none of them tried,
// for why (refusedToStart): one warning for the task, not one per slot;
// nothing is recorded, so the next scan tries them again, and replays them
// once the operator has fixed what why says. Refused makes the scan fail
// (exit 1), as a failed replay does. The real scan counts the folds left
// as it gives them back (settleFolds); a dry run counts them here.
func (ts *TaskScan) leaveRefused(task string, why error, replay []time.Time, spans map[int64]replaySpan, dry bool) {
	folds := 0
	for _, s := range replay {
		folds += len(spans[s.Unix()].fold)
	}
	n := len(replay) + folds
	ts.Left += len(replay)
	ts.Refused += n
	slots, verb := fmt.Sprintf("%d missed slots", n), "are"
	if n == 1 {
		slots, verb = "1 missed slot", "is"
	}
	if dry {
		verb = "would be"
		ts.Skipped, ts.Left = ts.Skipped-folds, ts.Left+folds
		ts.Actions = slices.DeleteFunc(ts.Actions, func(a SlotAction) bool { return a.Action == ActionDropped })
	}
	w := fmt.Sprintf("task %s: its %s %s left for the next scan, not replayed: %v", task, slots, verb, why)
	ts.Warnings = append(ts.Warnings, w)
	ts.StartRefused = StartRefusal{Why: why.Error(), Warning: w}
}

// reasonRefusedStart is a backfill's slot left by leaveRefused.
const reasonRefusedStart = "not run: refused before it started (above); nothing recorded"

// leaveRefused is scan's leaveRefused for a backfill: its slots are left,
// none claimed nor run, and why is said once, not at each slot.
func (tb *TaskBackfill) leaveRefused(m Machine, task string, why error, slots []time.Time, dry bool) {
	verb := "are"
	if dry {
		verb = "would be"
	}
	if len(slots) == 1 && !dry {
		verb = "is"
	}
	m.notice("task %s: its %d %s %s left, not run: %v", task, len(slots), plural(len(slots), "slot", "slots"), verb, why)
	tb.Left += len(slots)
	tb.Refused += len(slots)
	for _, s := range slots {
		tb.Actions = append(tb.Actions, SlotAction{Slot: s, Action: ActionLeft, Reason: reasonRefusedStart})
	}
}
