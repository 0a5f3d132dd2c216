package catchup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// ForgetRequest is one checked `catchup forget`.
type ForgetRequest struct {
	Task  string
	Purge bool // delete the task's history too
}

// ForgetResult is what forget did.
type ForgetResult struct {
	Task       store.Task // as it was
	PurgedRuns int64      // runs deleted by --purge
	// AlreadyRetired: the task was retired before (Task.RetiredAt), and
	// stays retired as of then; without Purge nothing changed.
	AlreadyRetired bool
	// Expired are the slots it missed, oldest first, recorded expired
	// (reason retired) as it was retired; none with Purge.
	Expired []time.Time
	// Unknown says why its missed slots are not known, so that none was
	// recorded (the ledger holds a time of it later than now); "" else.
	Unknown string
	// Paused are the slots of its pause that nothing recorded, oldest
	// first, recorded paused as a scan would have before it was retired.
	Paused []time.Time
	// Recent are the slots it missed that are younger than the tolerance,
	// oldest first: a fire of them may still come, so none is recorded.
	Recent []time.Time
}

// Forget retires a task: scan stops replaying it and ls --missed stops
// listing it; its history stays, unless req.Purge deletes it. A later fire
// of the task registers it anew, as of that fire. A purge refuses a task
// with a run in progress, and first pays the alerts this host's gone scans
// owe (payOwedAlerts). A task whose line is still in its crontab is
// retired with a notice that the line registers it again.
func Forget(ctx context.Context, st store.Store, m Machine, req ForgetRequest) (ForgetResult, error) {
	res, err := forget(ctx, st, m, req)
	if errors.Is(err, store.ErrRunInProgress) { // claimed after the purge looked (st.Running), refused in its transaction
		return ForgetResult{}, fmt.Errorf("task %s %w: purge it when it has ended", req.Task, err)
	}
	if err == nil {
		noticeLineStill(m, res.Task) // forget_line.go
	}
	return res, err
}

func forget(ctx context.Context, st store.Store, m Machine, req ForgetRequest) (ForgetResult, error) {
	if !req.Purge {
		if err := notesBefore(ctx, st, m, DefaultTolerance, "this forget"); err != nil { // its slots are not recorded expired
			return ForgetResult{}, err
		}
	}
	t, err := st.Task(ctx, req.Task)
	if errors.Is(err, store.ErrNotFound) {
		return ForgetResult{}, UnknownTask(req.Task)
	}
	if err != nil {
		return ForgetResult{}, err
	}
	if req.Purge {
		running, err := st.Running(ctx)
		if err != nil {
			return ForgetResult{}, err
		}
		for _, r := range running {
			if r.Task != t.Name {
				continue
			}
			if thisHost(st, m, r) && r.BootID != "" && r.BootID != m.BootID {
				// It ended with that boot, but only a scan records that.
				return ForgetResult{}, fmt.Errorf("task %s: run %d was left running by an earlier boot of this host (it ended with that boot); "+
					"run catchup scan first, which records it interrupted, then purge the task", t.Name, r.ID)
			}
			return ForgetResult{}, fmt.Errorf("task %s has a run in progress (run %d): purge it when it has ended", t.Name, r.ID)
		}
		// The alerts this host's gone scans owe stand for expired records
		// the purge deletes: paid first, as prune pays them, or the next
		// scan would find nothing to alert (never lost to a purge).
		if stopped := payOwedAlerts(ctx, st, m); stopped || ctx.Err() != nil {
			// Stopped while it paid them: nothing deleted, the alert left
			// owed to the next scan with the records it stands for.
			return ForgetResult{}, fmt.Errorf("task %s: stopped before its purge: nothing deleted (catchup forget %s --purge again)", t.Name, t.Name)
		}
	}
	// A task retired before keeps its retirement's time: scan --task and
	// ls name it, and nothing else moved since.
	if !t.RetiredAt.IsZero() {
		if !req.Purge {
			return ForgetResult{Task: t, AlreadyRetired: true}, nil
		}
		n, err := st.Forget(ctx, t.Name, t.RetiredAt, true)
		return ForgetResult{Task: t, PurgedRuns: n, AlreadyRetired: true}, err
	}
	var res ForgetResult
	if !req.Purge {
		// What it missed is recorded expired first, as scan's retirement
		// of a removed line records it (retireGone), without its alert:
		// the operator who forgets the task is told here.
		// Those younger than the tolerance are named, not recorded: the
		// task's line, if still in a crontab, may yet fire them (late),
		// and a slot never holds both an expiry and a run.
		if res.Paused, err = recordEndedPause(ctx, st, m, t, time.Time{}); err != nil {
			return ForgetResult{}, err
		}
		why := expiry{reason: reasonForgotten, code: store.ReasonRetired, unalerted: true}
		left, err := expireMissed(ctx, st, m, t, why, "", leftAt(m.Now()), mayStillFire(nil, m.Now(), DefaultTolerance, &res.Recent), false)
		if err != nil {
			return ForgetResult{}, err
		}
		res.Expired, res.Unknown = left.slots, left.aheadNote()
	}
	n, err := st.Forget(ctx, t.Name, m.Now(), req.Purge)
	res.Task, res.PurgedRuns = t, n
	return res, err
}

// reasonForgotten is why a slot missed before its task was forgotten is
// recorded expired.
const reasonForgotten = "its task was retired by catchup forget before it ran: no scan replays it"

// retireGone retires a crontab-discovered task whose line is gone from the
// crontab it was found in, with a notice (a dry run only says it would).
// Its slots missed until then are recorded expired first (reason retired)
// and alerted by notify (else the task's own), as a schedule change
// records the old schedule's: nothing can replay them once the line is
// gone, and they would vanish from every reader.
// It returns what it recorded expired (or, dry, would), for the scan's
// report (leftByChange.report).
func retireGone(ctx context.Context, st store.Store, m Machine, t store.Task, path, notify string, dry bool) (leftByChange, error) {
	var paused []time.Time
	if !dry {
		// The slots of its pause that no scan recorded: paused, as the
		// scan would have, not left with no record at all.
		var err error
		if paused, err = recordEndedPause(ctx, st, m, t, time.Time{}); err != nil {
			return leftByChange{}, err
		}
	}
	why := expiry{reason: fmt.Sprintf(reasonLineGone, path), code: store.ReasonRetired}
	left, err := expireMissed(ctx, st, m, t, why, notify, leftAt(m.Now()), nil, dry)
	if err != nil {
		return left, err
	}
	left.alert()
	if dry {
		m.notice("task %s: its line is gone from %s; a scan retires it%s", t.Name, path, leftRetired(left, true))
		return left, nil
	}
	if _, err := st.Forget(ctx, t.Name, m.Now(), false); err != nil {
		return left, err
	}
	m.notice("task %s: its line is gone from %s; retired, its slots are no longer replayed%s%s "+
		"(history kept: catchup forget --purge %s deletes it)", t.Name, path, leftRetired(left, false), pausedSlots(paused), t.Name)
	return left, nil
}

// reasonLineGone is why a slot missed before its task's line was removed
// from crontab %s is recorded expired.
const reasonLineGone = "its line was removed from %s before it ran: no scan replays it"

// leftRetired says what became of the slots a retirement left behind,
// for its notice: "" when none.
func leftRetired(left leftByChange, dry bool) string {
	if note := left.aheadNote(); note != "" {
		return "; " + note
	}
	if len(left.slots) == 0 {
		return ""
	}
	return "; " + left.describe(dry, "until then", store.ReasonRetired)
}

// revival is the registration a fire without --cron gives a retired task
// that had a schedule: its old definition, as new from this fire. A scan's
// replay or a backfill (a crontab line's run told CATCHUP_REPLAY_SLOT, its
// task retired since read) is no fire: it registers nothing, and its
// claim, which then registers nothing either, meets the retirement (T1).
func (l *lifecycle) revival(now, slot time.Time) *store.Task {
	if l.revive == nil || l.revive.Schedule == "" || !l.req.ReplaySlot.IsZero() {
		return nil
	}
	t := *l.revive
	t.RegisteredAt, t.UpdatedAt = l.registeredFrom(now, slot), now
	t.SettledThrough = t.RegisteredAt.Add(-time.Second)
	t.RetiredAt, t.PausedAt, t.PausedUntil = time.Time{}, time.Time{}, time.Time{}
	return &t
}

// pausedSlots names the slots of a pause that a retirement recorded
// paused, for its notice: "" when none.
func pausedSlots(slots []time.Time) string {
	switch n := len(slots); n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; the slot of its pause (%s) is recorded paused", rfc(slots[0]))
	default:
		return fmt.Sprintf("; the %d slots of its pause (%s to %s) are recorded paused", n, rfc(slots[0]), rfc(slots[n-1]))
	}
}
