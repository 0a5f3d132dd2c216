package catchup

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// A task's registration can change while a scan replays its backlog: a
// fire of its edited line registers it again (this host's, whose lock skip
// registers it too, or another host's on a shared ledger). Each replay's
// claim compares the task's row with the scan's read of it
// (store.ClaimRequest.Updated, in the row the claim reads anyway) and
// refuses a task written since; the scan then reads it again and replays
// the slot with its command as it stands, where it ran the whole backlog
// with the command read at its start.

// replayAsRegistered is replaySlot of the task as registered when its
// claim is made: a claim that finds it registered again since *t was
// read (a.changed) reads it again, takes its new command into *t
// (reregistered), and replays the slot with it, a few times at most. A
// registration changed beyond its command (its schedule, zone or policy;
// gone, retired), or that cannot be read, leaves a.changed: the scan
// replays nothing more of the task, and its next scan does, as registered.
func replayAsRegistered(ctx context.Context, st store.Store, m Machine, t *store.Task, req ScanRequest, sched *schedule.Schedule,
	sr *shellReplay, slot time.Time, span replaySpan, held *heldOutcome, read int64, seen os.FileInfo) (SlotAction, error) {
	a, err := replaySlot(ctx, st, m, withCommand(*t, req), sched, sr, slot, span, held, read, seen)
	for tries := 0; err == nil && a.changed && tries < 3 && reregistered(ctx, st, m, t); tries++ {
		a, err = replaySlot(ctx, st, m, withCommand(*t, req), sched, sr, slot, span, held, read, seen)
	}
	return a, err
}

// reregistered reads task t again after a replay's claim found it written
// since read: true when only what its replays run changed (its command,
// directory, retries, timeouts, --notify-cmd), taken into *t with its new
// UpdatedAt, and said once.
func reregistered(ctx context.Context, st store.Store, m Machine, t *store.Task) bool {
	cur, err := st.Task(ctx, t.Name)
	if err != nil || !cur.RetiredAt.IsZero() || !cur.RegisteredAt.Equal(t.RegisteredAt) || cur.Schedule != t.Schedule ||
		cur.TZ != t.TZ || cur.Replay != t.Replay || cur.MaxAge != t.MaxAge || cur.Shell != t.Shell {
		return false
	}
	if commandOf(cur) != commandOf(*t) {
		m.notice("task %s was registered again since this scan read it, with another command: its later slots replay it", t.Name)
	}
	t.Argv, t.Dir, t.Retries, t.RetryDelay, t.Timeout, t.KillAfter = cur.Argv, cur.Dir, cur.Retries, cur.RetryDelay, cur.Timeout, cur.KillAfter
	t.NoCapture, t.NotifyCmd, t.Source, t.UpdatedAt = cur.NoCapture, cur.NotifyCmd, cur.Source, cur.UpdatedAt
	return true
}

// lineAsRegistered is a crontab line's look before scan runs it for a
// later slot of its backlog: the line is another process, whose own
// commands (after its `catchup run`) a claim refused as registered again
// does not hold back, so a task registered again since *t was read with
// the same line (another scan --crontab, as two scans at once do) is read
// again first (reregistered), and the line runs once for the slot, not
// once more after its claim was refused. A line changed since (or a
// ledger that cannot be read) is left to the line's claim, which names
// the slot's holder first, else refuses the task as registered again
// (CATCHUP_REPLAY_UPDATED: the rest waits for the next scan).
func lineAsRegistered(ctx context.Context, st store.Store, m Machine, t *store.Task) {
	if cur, err := st.Task(ctx, t.Name); err == nil && !t.UpdatedAt.IsZero() && !cur.UpdatedAt.Equal(t.UpdatedAt) {
		reregistered(ctx, st, m, t)
	}
}

// commandOf is what a task's replays run, to tell whether it changed.
func commandOf(t store.Task) string {
	return fmt.Sprintf("%q %q %q", t.Argv, t.Dir, t.NotifyCmd)
}

// leaveChanged ends a task's replays in this scan: its registration
// changed since the scan read it, beyond its command (reregistered). left
// replays are left; folds, the slots folded into them (coalesce), are
// left with them (settleFolds counts them) and in the warning's count.
func (ts *TaskScan) leaveChanged(task string, left, folds int) {
	ts.Left = left
	ts.Warnings = append(ts.Warnings, fmt.Sprintf("task %s was registered again since this scan read it: "+
		"its missed slots (%d) wait for the next scan, which replays them as registered then", task, left+folds))
}

// foldedInto counts the slots folded (coalesce) into the replays of slots.
func foldedInto(slots []time.Time, spans map[int64]replaySpan) int {
	n := 0
	for _, s := range slots {
		n += len(spans[s.Unix()].fold)
	}
	return n
}
