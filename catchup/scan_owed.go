package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// owe keeps the alert of task t's expiries ex owed (oweAlert) before they
// are recorded, beside those this scan of t owes already: the window's
// and the policy's, then a coalesced line's gap given up (oweGivenUp).
func (ts *TaskScan) owe(m Machine, t store.Task, ex []expirySpan, dry bool) {
	if o := oweAlert(m, ts.alertCmd, t, ts.alertAt, ts.Policy, ex, dry); o != nil {
		ts.owed = append(ts.owed, o)
	}
}

// oweGivenUp keeps owed the alert of the slots of a coalesced line's gap
// (folds: their planned actions, in step with slots, for their causes)
// that giveUpFolds is about to record expired with the line's slot (rec).
// Before, a scan killed between that record and its alert lost the alert:
// no later scan sent it, and nothing else told of those slots.
func (ts *TaskScan) oweGivenUp(m Machine, t store.Task, slots []time.Time, folds []SlotAction, rec store.Run) {
	causes := make([]string, len(slots))
	for i := range causes {
		if i < len(folds) {
			causes[i] = folds[i].Cause
		}
	}
	ts.owe(m, t, []expirySpan{{slots: slots, causes: causes, reason: rec.Error, code: rec.Reason}}, false)
}

// releaseOwed leaves every alert ts owes to the next scan.
func (ts *TaskScan) releaseOwed() {
	for _, o := range ts.owed {
		o.release()
	}
}

// paidUnlessStopped removes the alerts ts owes once its alert has run
// (alertErr its error), unless catchup was stopped while it ran: then
// they stay owed, said once (owedAlertFile.paidUnlessStopped).
func (ts *TaskScan) paidUnlessStopped(ctx context.Context, m Machine, task string, alertErr error) {
	for i, o := range ts.owed {
		switch {
		case i == 0:
			o.paidUnlessStopped(ctx, m, task, alertErr)
		case stoppedInAlert(ctx, alertErr):
			o.release()
		default:
			o.paid(m)
		}
	}
}
