package catchup

import (
	"context"
	"strings"

	"github.com/catchup/catchup/store"
)

// sayLateOutcome says that run r's outcome, just recorded on a shared
// ledger, came after another host took the run for dead (store.Store.Finish
// keeps that in its error): this host stalled (frozen, a VM suspended, its
// link cut) for longer than the lease while the command ran, and the
// command ended before a heartbeat could find the lease lost
// (leaseLostNotice). Its slot may then have been replayed elsewhere: run
// twice. Before, the host said only that the job succeeded. Only a run
// longer than the lease can have lost it: a shorter one costs no read.
func (l *lifecycle) sayLateOutcome(ctx context.Context, r store.Run) {
	if !l.st.Shared() || l.m.Lease <= 0 || l.m.Now().Sub(r.StartedAt) <= l.m.Lease {
		return
	}
	cur, err := l.st.Run(context.WithoutCancel(ctx), r.ID)
	if err != nil || !strings.Contains(cur.Error, store.LateOutcomeNote) {
		return
	}
	slot := "its run"
	if !r.Slot.IsZero() {
		slot = "slot " + formatSlot(r.Slot, l.sched)
	}
	l.m.notice("task %s: run %d was taken for dead before its outcome was recorded (this host or its link to the ledger stalled "+
		"for longer than --lease %s while the command ran): %s may have run twice, replayed elsewhere; its record keeps both",
		r.Task, r.ID, FormatDuration(l.m.Lease), slot)
}
