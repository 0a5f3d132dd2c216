package catchup

import (
	"context"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// missedAsk is a task whose missed slots missedOfTasks looks for, with its
// schedule.
type missedAsk struct {
	t     store.Task
	sched *schedule.Schedule
}

// missedOfTasks is missedSlots of each task asked, in step with asks, in
// a few reads of the ledger whatever the number of tasks: every task's runs
// in one (SlotRunsOf, each task's judged as they come, only its missed
// slots' records kept), then the first fires of the tasks with missed
// slots (FirstFires), the ledger's hosts (BootHosts) and the boots of
// those hosts that boots does not hold yet (BootsOf). On a shared ledger
// that is four round trips, not one or two per task.
func missedOfTasks(ctx context.Context, st store.Store, m Machine, asks []missedAsk, rule MissedRule,
	stale map[int64]bool, boots *bootCache, notes *pendingNotes) ([]missed, error) {
	now := m.Now()
	found := make([]judged, len(asks))
	var ranges []store.SlotRange
	var of []int // the ask of each range
	for i, a := range asks {
		from := missedFrom(a.t)
		if !now.After(from) {
			found[i] = judgeSlots(m, a.t, a.sched, rule, stale, nil, from, now, nil)
			continue
		}
		ranges, of = append(ranges, store.SlotRange{Task: a.t.Name, From: from, To: now}), append(of, i)
	}
	err := st.SlotRunsOf(ctx, ranges, rule.Tolerance, func(k int, runs []store.Run) error {
		a := asks[of[k]]
		found[of[k]] = judgeSlots(m, a.t, a.sched, rule, stale, notes, ranges[k].From, now, runs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var tasks []string
	for _, j := range found {
		if j.hasMissed() {
			tasks = append(tasks, j.task)
		}
	}
	if len(tasks) > 0 {
		if err := boots.prefetchFires(ctx, tasks); err != nil {
			return nil, err
		}
		if err := boots.prefetch(ctx, boots.hostsOfTasks(tasks)); err != nil {
			return nil, err
		}
	}
	out := make([]missed, len(asks))
	for i := range found {
		if found[i].hasMissed() {
			u, err := boots.taskUptime(ctx, found[i].task, found[i].fires)
			if err != nil {
				return nil, err
			}
			found[i].addCauses(stale, u)
		}
		out[i] = found[i].missed
	}
	return out, nil
}
