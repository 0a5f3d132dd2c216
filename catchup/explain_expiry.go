package catchup

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// expiringReason is why the next scan records missed slot expired rather
// than replay it, in the words of scan's expiry ("older than the catch-up
// window (7d)", "beyond --max-replays 100", `dropped by replay policy
// "latest"`), or "" when it replays it. It splits the task's missed slots
// as scanTask does: those older than the window, then plan's drops among
// the rest (req.Replay, else the task's policy; req.MaxReplays); coalesce folds slots into a
// replay, it expires none: into is then the slot whose replay stands for
// slot (scan records slot skipped, coalesced into it), zero when slot is
// replayed itself.
func expiringReason(ctx context.Context, st store.Store, m Machine, t store.Task, s *schedule.Schedule,
	req ExplainRequest, slot time.Time, stale map[int64]bool, notes *pendingNotes) (reason string, into time.Time, err error) {
	res, err := missedSlots(ctx, st, m, t, s, req.MissedRule, stale, nil, notes)
	if err != nil {
		return "", time.Time{}, err
	}
	paused := splitPaused(t, &res)
	if slices.ContainsFunc(res.offSchedule, slot.Equal) {
		return fmt.Sprintf(reasonScheduleChanged, s.Expr(), s.Location()), time.Time{}, nil
	}
	aged := fmt.Sprintf(reasonMaxAge, FormatDuration(catchupWindow(t, req.MissedRule)))
	at := -1
	for i, sl := range res.slots {
		if sl.Equal(slot) {
			at = i
		}
	}
	switch {
	case at < 0: // not among scan's missed slots: by the window alone
		if slot.Before(m.Now().Add(-catchupWindow(t, req.MissedRule))) {
			return aged, time.Time{}, nil
		}
		return "", time.Time{}, nil
	case at < res.expiring:
		return aged, time.Time{}, nil
	}
	policy := req.policy(t)
	if policy == "coalesce" {
		// The gaps scanTask coalesces, from the same reads.
		gaps, err := coalescedGaps(ctx, st, t.Name, s, res.slots[res.expiring:], res.slots[:res.expiring],
			notes.dividing(paused, t, s, req.Tolerance))
		if err != nil {
			return "", time.Time{}, err
		}
		for _, g := range gaps {
			if slices.ContainsFunc(g.fold, slot.Equal) {
				return "", g.slot, nil
			}
		}
		return "", time.Time{}, nil
	}
	_, drop, why := plan(res.slots[res.expiring:], policy, req.MaxReplays)
	for _, d := range drop {
		if d.Equal(slot) {
			return why, time.Time{}, nil
		}
	}
	return "", time.Time{}, nil
}
