package catchup

import (
	"context"

	"github.com/catchup/catchup/store"
)

// giveBackPassed deals with run r, just recorded with an outcome that
// leaves its slot unsettled or owed (interrupted, failed, timed out, a lock
// skip), when the task's watermark has passed its slot: a schedule change
// registered meanwhile moved it to the change, past the slot, which the
// change could neither settle nor record expired. That is a run that was
// running when the edited line's lock-skipped fire registered the change,
// then cut short or failed; and a --slot fire that changed the schedule,
// which counts it from now, past the fire's own slot (scheduleFrom). The
// slot is given back, the watermark going below it, as a run taken for
// dead lowers it (store.Store.Interrupt): the new schedule's slot is then
// missed (a failed one, for --retry-failed) and replayed, and one the new
// schedule does not have is recorded expired by the next scan
// (missed.offSchedule), as for a run of the old schedule found dead after
// the change. Before, the slot vanished from every reader. Any other run
// is left as it is: the watermark never passes such a slot otherwise
// (store.Store.SetSettled, advanceWatermark). A scan's replay whose
// outcome was held for the next claim (replay_held.go) is dealt with once
// that outcome is recorded, and a daemon's old line then spares the slot
// given back that its new schedule has (RecordLeftBehind).
func giveBackPassed(ctx context.Context, st store.Store, m Machine, r store.Run) {
	if r.Slot.IsZero() || r.ID == 0 || !unsettling(r) {
		return
	}
	ctx = context.WithoutCancel(ctx) // a run stopped by a signal is cut short with its context
	t, err := st.Task(ctx, r.Task)
	if err != nil || t.ScheduleSince.IsZero() || r.Slot.After(t.ScheduleSince) || t.SettledThrough.Before(r.Slot) {
		// No change passed it: the missed-slot rule reads it, or a
		// watermark that passed it did so once a later record settled it
		// (a run taken for dead whose slot was replayed).
		return
	}
	cur, err := st.Run(ctx, r.ID) // as recorded: an outcome after the run was taken for dead keeps why
	if err != nil || !unsettling(cur) {
		return
	}
	out := store.Outcome{Status: cur.Status, ExitCode: cur.ExitCode, EndedAt: cur.EndedAt, Error: cur.Error}
	if err := st.GiveBack(ctx, []int64{r.ID}, out); err != nil {
		m.notice("task %s: slot %s, which a schedule change passed before its run settled it, cannot be given back to scan: %v",
			r.Task, rfc(r.Slot), err)
	}
}

// unsettling reports whether finished record r leaves its slot to the
// missed-slot rule: interrupted, failed or timed out (for --retry-failed),
// or skipped because the task's lock was held (exit 75).
func unsettling(r store.Run) bool {
	switch r.Status {
	case store.StatusInterrupted, store.StatusFailed, store.StatusTimeout:
		return true
	case store.StatusSkipped:
		return r.ExitCode != nil && *r.ExitCode == exitLocked
	}
	return false
}
