package catchup

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// A coalesced replay of slot S killed with its scan (a power cut) leaves
// its folds standing: the gap's older slots recorded skipped for it, which
// settle them, and S interrupted (or, a crontab line's, not claimed yet).
// The next scan replays S told the whole gap again (standingFolds), and so
// the folds are right to stand until then. Whatever settles S otherwise
// must not leave them standing for a replay that will never come:
//   - a backfill or a run by hand of S, which runs it for its own interval,
//     gives them back (giveBackDeadFolds): missed again, the next scan
//     replays them;
//   - forget, a schedule change or a line's removal, which record S
//     expired, record them expired with it (withDeadFolds).
// Before, the gap stayed settled by a replay that never ran it: run by
// nothing, recorded expired nowhere, and listed missed by no reader.

// giveBackDeadFolds gives back the standing folds of a killed coalesced
// replay of the slot r that this backfill's or run by hand's claim took
// (its first attempt), and says so in one line. A read that fails leaves
// them standing, as before.
func (l *lifecycle) giveBackDeadFolds(ctx context.Context, r store.Run) error {
	if r.Attempt != 1 || l.sched == nil || r.Slot.IsZero() || (!l.req.Backfill && l.req.Slot.IsZero()) {
		return nil
	}
	t := store.Task{Name: l.req.Task, RegisteredAt: l.req.Registered} // a backfill's
	if l.registered != nil {
		t = *l.registered
	}
	g, ok, err := standingFolds(ctx, l.st, t, l.sched, r.Slot)
	if err != nil || !ok {
		return nil
	}
	by := "a run by hand"
	if l.req.Backfill {
		by = "a backfill"
	}
	if err := giveBackFolds(ctx, l.st, l.m, l.req.Task, g.standing, "killed, its slot since run by "+by+" for its own interval", r.Slot); err != nil {
		return err
	}
	l.m.notice("slot %s of %s: the %d slots coalesced into its replay, killed before it ran them, are missed again: this run is told its own interval only; the next scan replays them",
		formatSlot(r.Slot, l.sched), l.req.Task, len(g.standing))
	return nil
}

// withDeadFolds adds to the slots about to be recorded expired (slots,
// with their causes, oldest first) the standing folds of each killed
// coalesced replay among them (an interrupted slot's), given back first
// unless dry (a dry run counts them only). A fold's cause is its slot's
// (interrupted): the replay that stood for it died.
func withDeadFolds(ctx context.Context, st store.Store, m Machine, t store.Task, sched *schedule.Schedule,
	slots []time.Time, causes []string, dry bool) ([]time.Time, []string, error) {
	type slotCause struct {
		slot  time.Time
		cause string
	}
	var add []slotCause
	for i, s := range slots {
		if i >= len(causes) || causes[i] != CauseInterrupted {
			continue
		}
		g, ok, err := standingFolds(ctx, st, t, sched, s)
		if err != nil {
			return slots, causes, err
		}
		if !ok {
			continue
		}
		runs, err := st.SlotRuns(ctx, t.Name, g.prev, s.Add(-time.Second), 0)
		if err != nil {
			return slots, causes, err
		}
		for _, r := range runs {
			if slices.Contains(g.standing, r.ID) {
				add = append(add, slotCause{r.Slot, CauseInterrupted})
			}
		}
		if !dry {
			why := fmt.Sprintf("killed, its slot recorded expired with them (task %s)", t.Name)
			if err := giveBackFolds(ctx, st, m, t.Name, g.standing, why, s); err != nil {
				return slots, causes, err
			}
		}
	}
	if len(add) == 0 {
		return slots, causes, nil
	}
	all := make([]slotCause, 0, len(slots)+len(add))
	for i, s := range slots {
		c := ""
		if i < len(causes) {
			c = causes[i]
		}
		all = append(all, slotCause{s, c})
	}
	all = append(all, add...)
	slices.SortFunc(all, func(a, b slotCause) int { return a.slot.Compare(b.slot) })
	all = slices.CompactFunc(all, func(a, b slotCause) bool { return a.slot.Equal(b.slot) })
	slots, causes = make([]time.Time, len(all)), make([]string, len(all))
	for i, sc := range all {
		slots[i], causes[i] = sc.slot, sc.cause
	}
	return slots, causes, nil
}

// withExpiringDeadFolds adds to r's expiring slots (older than the catch-up
// window) the standing folds of each killed coalesced replay among them
// (withDeadFolds), which are older still: scan records them expired with
// it, and counts them missed. Before, it recorded the slot alone, and the
// gap stayed settled by a replay that never ran it.
func (r *missed) withExpiringDeadFolds(ctx context.Context, st store.Store, m Machine, t store.Task, sched *schedule.Schedule, dry bool) error {
	if r.expiring == 0 || len(r.causes) < r.expiring {
		return nil
	}
	slots, causes, err := withDeadFolds(ctx, st, m, t, sched, r.slots[:r.expiring], r.causes[:r.expiring], dry)
	if err != nil || len(slots) == r.expiring {
		return err
	}
	r.slots = append(slots, r.slots[r.expiring:]...)
	r.causes = append(causes, r.causes[r.expiring:]...)
	r.expiring = len(slots)
	return nil
}
