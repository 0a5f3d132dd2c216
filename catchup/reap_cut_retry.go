package catchup

import (
	"context"
	"slices"

	"github.com/catchup/catchup/store"
)

// A fire's --notify-cmd runs once, after its last attempt. A retry waiting
// out its delay (store.InRetryDelay) that is found dead (a power cut, a
// kill, a lease run out) leaves the failed attempt before it as the slot's
// outcome (R10): the slot is settled, no scan replays it, and the process
// that would have run the alert is gone. The process that records the
// retry cut (its Interrupt changed the record: one process only) runs the
// task's stored --notify-cmd for that failed attempt, as the fire would
// have, once the task's lock it may hold is let go.

// cutRetries collects the retries a reap recorded cut in their delay.
type cutRetries []store.Run

// interrupted notes r, a running record Interrupt has just changed (done),
// if it was waiting out a retry's delay.
func (c *cutRetries) interrupted(r store.Run, done bool, why string) {
	if done && store.InRetryDelay(r.Reason) {
		r.Error = why
		*c = append(*c, r)
	}
}

// alert runs, for each retry cut, the alert of the failed attempt before
// it: the task's stored --notify-cmd (a masked one cannot run, and says
// so), with that attempt's outcome.
func (c cutRetries) alert(ctx context.Context, st store.Store, m Machine) {
	ctx = context.WithoutCancel(ctx)
	for _, r := range c {
		t, err := st.Task(ctx, r.Task)
		if err != nil || t.NotifyCmd == "" || r.Slot.IsZero() {
			continue // no --notify-cmd registered: its fire's own, if any, is not known here
		}
		failed, ok := failedAttemptBefore(ctx, st, r)
		if !ok {
			continue
		}
		sched, _ := storedSchedule(m, nil, t)
		slot := formatSlot(r.Slot, sched)
		cmd := storedNotify(t)
		if cmd == "" {
			m.notice("task %s: its retry of slot %s was cut in its delay (%s): its failed attempt's alert cannot run here (the ledger keeps its --notify-cmd masked)",
				r.Task, slot, r.Error)
			continue
		}
		m.notice("task %s: its retry of slot %s was cut in its delay (%s): alerting its failed attempt, as its fire would have",
			r.Task, slot, r.Error)
		l := &lifecycle{st: st, m: m, sched: sched, req: RunRequest{Task: r.Task, NotifyCmd: cmd}}
		l.alert(ctx, failed)
	}
}

// failedAttemptBefore is the record of the attempt that retry r followed,
// if it failed (or timed out): the outcome that stands for r's slot.
func failedAttemptBefore(ctx context.Context, st store.Store, r store.Run) (store.Run, bool) {
	runs, err := st.SlotRuns(ctx, r.Task, r.Slot, r.Slot, 0)
	if err != nil {
		return store.Run{}, false
	}
	for _, o := range runs {
		if o.Attempt == r.Attempt-1 && o.ID < r.ID && slices.Contains(store.FailureStatuses, o.Status) && o.Status != store.StatusInterrupted {
			return o, true
		}
	}
	return store.Run{}, false
}
