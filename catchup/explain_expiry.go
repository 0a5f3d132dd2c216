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
// replay, it expires none.
func expiringReason(ctx context.Context, st store.Store, m Machine, t store.Task, s *schedule.Schedule,
	req ExplainRequest, slot time.Time, stale map[int64]bool, notes *pendingNotes) (string, error) {
	res, err := missedSlots(ctx, st, m, t, s, req.MissedRule, stale, nil, notes)
	if err != nil {
		return "", err
	}
	splitPaused(t, &res)
	if slices.ContainsFunc(res.offSchedule, slot.Equal) {
		return fmt.Sprintf(reasonScheduleChanged, s.Expr(), s.Location()), nil
	}
	aged := fmt.Sprintf(reasonMaxAge, formatWindow(catchupWindow(t, req.MissedRule)))
	at := -1
	for i, sl := range res.slots {
		if sl.Equal(slot) {
			at = i
		}
	}
	switch {
	case at < 0: // not among scan's missed slots: by the window alone
		if slot.Before(m.Now().Add(-catchupWindow(t, req.MissedRule))) {
			return aged, nil
		}
		return "", nil
	case at < res.expiring:
		return aged, nil
	}
	policy := req.policy(t)
	if policy == "coalesce" {
		return "", nil
	}
	_, drop, reason := plan(res.slots[res.expiring:], policy, req.MaxReplays)
	for _, d := range drop {
		if d.Equal(slot) {
			return reason, nil
		}
	}
	return "", nil
}
