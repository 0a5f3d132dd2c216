package catchup

import (
	"context"

	"github.com/catchup/catchup/store"
)

// giveBackCutShort deals with run r, just recorded interrupted by its own
// catchup, whose slot the task's watermark passed while it ran: a schedule
// change registered then (the edited line's fire found the task's lock
// held and registered the change with its lock skip) moved the watermark
// to the change, past the running slot, which the change could neither
// settle nor record expired. The slot is given back, the watermark going
// below it, as a run taken for dead lowers it (store.Store.Interrupt): the
// new schedule's slot is then missed and replayed, and one the new
// schedule does not have is recorded expired by the next scan
// (missed.offSchedule), as for a run of the old schedule found dead after
// the change. Before, the slot vanished from every reader. Any other run
// is left as it is: the watermark never passes a running run's slot
// otherwise (store.Store.SetSettled).
func giveBackCutShort(ctx context.Context, st store.Store, m Machine, r store.Run) {
	if r.Slot.IsZero() || r.Status != store.StatusInterrupted {
		return
	}
	ctx = context.WithoutCancel(ctx) // a run stopped by a signal is cut short with its context
	t, err := st.Task(ctx, r.Task)
	if err != nil || t.SettledThrough.Before(r.Slot) {
		return // not passed: the missed-slot rule reads it
	}
	out := store.Outcome{Status: r.Status, ExitCode: r.ExitCode, EndedAt: r.EndedAt, Error: r.Error}
	if err := st.GiveBack(ctx, []int64{r.ID}, out); err != nil {
		m.notice("task %s: slot %s, whose run was cut short after the task's watermark passed it, cannot be given back to scan: %v",
			r.Task, rfc(r.Slot), err)
	}
}
