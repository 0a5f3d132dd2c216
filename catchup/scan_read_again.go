package catchup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// readAgain reads task t again as a scan comes to it, after the
// replays of the tasks before it: `catchup forget --purge` may have deleted
// it since the scan read the ledger's tasks, and a fire may have registered
// it again since, as a new task from that fire. Either way the task the
// scan read is gone: scanning it would find none of its runs, replay every
// slot since its old registration (those that ran too) and write the task
// back. `catchup forget` may have retired it since, too: forget recorded
// its missed slots, and no scan replays nor records a retired task. The
// warning says so; "" when the task is as the scan read it, whose pause
// (`catchup pause`, `resume` since) it then takes into *t. A forget that
// commits after this read is refused by each write of the task
// (store.OfLive): goneAt.
func readAgain(ctx context.Context, st store.Store, t *store.Task) (string, error) {
	cur, err := st.Task(ctx, t.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return forgottenWarning(t.Name), nil
	case err != nil:
		return "", err
	case cur.RegisteredAt.After(t.RegisteredAt):
		return fmt.Sprintf("task %s was forgotten since this scan read it (catchup forget); not scanning it: "+
			"it is registered again as of %s, and the next scan looks at it from then", t.Name, rfc(cur.RegisteredAt)), nil
	case !cur.RetiredAt.IsZero():
		return retiredUnrecordedWarning(t.Name), nil
	}
	t.PausedAt, t.PausedUntil = cur.PausedAt, cur.PausedUntil
	return "", nil
}

// forgottenWarning says that task was deleted (`catchup forget --purge`)
// since the scan read it: readAgain's, and a replay's whose claim found the
// task gone (store.ClaimResult.Gone), which runs nothing.
func forgottenWarning(task string) string {
	return fmt.Sprintf("task %s was forgotten since this scan read it (catchup forget); not scanning it", task)
}

// retiredWarning says that task was retired (`catchup forget`) since the
// scan read it: a replay's claim refused it (store.ClaimResult.Retired),
// which runs nothing, and the scan replays nothing more of it.
func retiredWarning(task string) string {
	return fmt.Sprintf("task %s was retired since this scan read it (catchup forget, or its line gone): not replayed", task)
}

// retiredUnrecordedWarning says that task was retired (`catchup forget`)
// since the scan read it, before it wrote anything of it: readAgain's, and
// a write's refused so (store.ErrRetired: goneAt). Forget recorded the
// slots it missed (expired, reason retired) and those of its pause.
func retiredUnrecordedWarning(task string) string {
	return fmt.Sprintf("task %s was retired since this scan read it (catchup forget, or its line gone): nothing recorded", task)
}

// reasonRetiredSince is the reason of a replay whose claim refused its task
// retired since the scan read it.
const reasonRetiredSince = "not run: the task was retired since this scan read it (catchup forget)"

// retiredSince reports whether task t, as read, was retired since (and not
// registered again). A crontab line that ran nothing asks it: its claim
// may have found the task so (ClaimResult.Retired). A ledger that cannot
// be read says no.
func retiredSince(ctx context.Context, st store.Store, t store.Task) bool {
	cur, err := st.Task(context.WithoutCancel(ctx), t.Name)
	return err == nil && !cur.RetiredAt.IsZero() && !cur.RegisteredAt.After(t.RegisteredAt)
}

// goneAt takes a write's store.ErrGone (the task purged since readAgain,
// or purged and registered again) for the scan's end of the task: it
// sets *gone (nothing more is written back), warns, and returns nil. It
// takes store.ErrRetired (retired since) so too, but for *gone: the
// ledger refuses each later write of the task as this one, and the
// scan's amends of its own records from before the retirement (the folds
// of a replay whose claim was refused, given up) still stand; it warns
// once, unless a refused claim said so (retiredWarning). Any other error
// is returned as it is.
func (ts *TaskScan) goneAt(err error, gone *bool) error {
	switch {
	case errors.Is(err, store.ErrRetired):
		if w := retiredUnrecordedWarning(ts.Task); !slices.Contains(ts.Warnings, w) && !slices.Contains(ts.Warnings, retiredWarning(ts.Task)) {
			ts.Warnings = append(ts.Warnings, w)
		}
		return nil
	case !errors.Is(err, store.ErrGone):
		return err
	}
	*gone = true
	ts.Warnings = append(ts.Warnings, forgottenWarning(ts.Task))
	return nil
}

// registeredEnv tells a crontab line's `catchup run` (a scan's replay, a
// backfill's) the registration of task t as read: its claim refuses the
// task purged since, or purged and registered again (store.ClaimRequest.Registered).
func registeredEnv(t store.Task) string {
	return "CATCHUP_REPLAY_REGISTERED=" + t.RegisteredAt.UTC().Format(time.RFC3339Nano)
}

// updatedEnv tells a crontab line's `catchup run` (a scan's replay) when
// task t, as read, was last registered: its claim refuses the task
// registered again since (store.ClaimRequest.Updated), and runs nothing.
func updatedEnv(t store.Task) string {
	return "CATCHUP_REPLAY_UPDATED=" + t.UpdatedAt.UTC().Format(time.RFC3339Nano)
}

// changedSince reports whether task t, as read, was registered again
// since (its UpdatedAt moved), as registered from then on: a crontab line
// that ran nothing asks it, its claim may have been refused so
// (ClaimResult.Changed). A ledger that cannot be read says no.
func changedSince(ctx context.Context, st store.Store, t store.Task) bool {
	cur, err := st.Task(context.WithoutCancel(ctx), t.Name)
	return err == nil && !cur.UpdatedAt.Equal(t.UpdatedAt) && !cur.RegisteredAt.After(t.RegisteredAt)
}

// goneSince reports whether task t, as read, is no longer in the ledger:
// purged since, or purged and registered again. A crontab line that ran
// nothing asks it: its claim may have found the task so (ClaimResult.Gone).
// A ledger that cannot be read says no.
func goneSince(ctx context.Context, st store.Store, t store.Task) bool {
	cur, err := st.Task(context.WithoutCancel(ctx), t.Name)
	return errors.Is(err, store.ErrNotFound) || err == nil && cur.RegisteredAt.After(t.RegisteredAt)
}

// leavePaused ends a task's replays at a pause set during them, left
// slots still missed: the next scan records those of the pause paused.
func (ts *TaskScan) leavePaused(why string, left int) {
	ts.Left = left
	ts.Warnings = append(ts.Warnings, fmt.Sprintf("%s: its later missed slots (%d) wait for the next scan, "+
		"which records those of the pause paused", why, ts.Left))
}

// pausedSince reads task t's pause again before the replay of slot, a
// later one of its backlog: a `catchup pause` during the task's replays
// (from another shell, or from a job) covers its slots from the pause's
// start, as it does a scan's that reads it first. A crontab line's replay
// asks it before the line starts; an argv task's replay's claim reads the
// pause itself (store.ClaimRequest.RefusePaused). It returns why slot
// must not be replayed now ("" to replay it); a task that cannot be read
// is not taken for paused: the slot's claim meets the ledger's error.
func pausedSince(ctx context.Context, st store.Store, t store.Task, slot time.Time) string {
	cur, err := st.Task(ctx, t.Name)
	if err != nil || !Paused(cur, slot) {
		return ""
	}
	return fmt.Sprintf("task %s was paused during this scan's replays (%s)", t.Name, pauseSpan(cur))
}
