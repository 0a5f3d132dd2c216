package catchup

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// leftByAChange reports whether the ledger holds slot of task recorded
// expired because its schedule changed (a slot of the earlier schedule
// that the change, or a scan after it, left: an alert named it).
func leftByAChange(ctx context.Context, st store.Store, task string, slot time.Time) (bool, error) {
	runs, err := st.SlotRuns(ctx, task, slot, slot, 0)
	return slices.ContainsFunc(runs, func(r store.Run) bool {
		return r.Slot.Equal(slot) && r.Status == store.StatusExpired && r.Reason == store.ReasonScheduleChanged
	}), err
}

// owedToAnOldSchedule reports whether slot, no slot of task t's schedule
// s, is owed to an earlier one (missed.offSchedule: a run of it cut short
// or dead after the change): the next scan records it expired.
func owedToAnOldSchedule(ctx context.Context, st store.Store, m Machine, t store.Task, s *schedule.Schedule, rule MissedRule,
	stale map[int64]bool, notes *pendingNotes, slot time.Time) (bool, error) {
	res, err := missedSlots(ctx, st, m, t, s, rule, stale, nil, notes)
	return slices.ContainsFunc(res.offSchedule, slot.Equal), err
}

// defaultSlot is the task's latest missed slot (the slots of its pause
// are none), else its latest slot, else its first to come.
func defaultSlot(ctx context.Context, st store.Store, m Machine, t store.Task, s *schedule.Schedule, rule MissedRule,
	stale map[int64]bool, notes *pendingNotes) (time.Time, error) {
	res, err := missedSlots(ctx, st, m, t, s, rule, stale, nil, notes)
	if err != nil {
		return time.Time{}, err
	}
	// The slots of the task's pause are settled, never missed (as ls and
	// scan count them): the latest missed slot may come before the pause.
	splitPaused(t, &res)
	if n := len(res.slots); n > 0 {
		return res.slots[n-1], nil
	}
	if p, ok := s.Prev(m.Now()); ok {
		return p, nil
	}
	// None yet (a clock set to the year 1): its first slot, not due yet,
	// never the zero time told as if it were one.
	if n, ok := s.Next(m.Now()); ok {
		return n, nil
	}
	return time.Time{}, fmt.Errorf("task %s: %q in %s has no slot to explain", t.Name, s.Expr(), s.Location())
}

// errRanUnderAnEarlierSchedule is explain's refusal of slot, no slot of
// the task's schedule s, whose runs the ledger holds (a slot of an earlier
// schedule or zone that ran before the change, or another host's that
// migrate copied in: history lists it, calendar draws it): it names them, not only the slots around it as if nothing had
// run then. nil when no run names slot.
func errRanUnderAnEarlierSchedule(ctx context.Context, st store.Store, task string, slot time.Time, s *schedule.Schedule) error {
	runs, err := st.SlotRuns(ctx, task, slot, slot, 0)
	if err != nil {
		return err
	}
	var ids []string
	var last int64
	for _, r := range runs {
		if r.Slot.Equal(slot) {
			ids = append(ids, strconv.FormatInt(r.ID, 10))
			last = max(last, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	held := "run " + ids[0]
	if len(ids) > 1 {
		held = "runs " + strings.Join(ids, ", ")
	}
	return fmt.Errorf("%s is not a slot of %q in %s, the task's schedule now, but of another schedule or zone it had (before a change, or on another host): "+
		"the ledger holds %s of it (catchup show %d); explain tells the current schedule's slots, and those a change left expired",
		slot.UTC().Format(time.RFC3339Nano), s.Expr(), s.Location(), held, last)
}
