package catchup

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// settleFolds settles the slots scan --replay coalesce folded into the
// replay of the gap's latest slot, slot (ts.Actions[at:at+n], in slot
// order; the replay comes after them), but only if that replay ran here, told the whole
// gap (CATCHUP_PREV_SLOT). A replay that did not run here (its slot taken by
// another run, which is told only its own slot's predecessor; the budget
// spent; its claim not recorded) covered nothing of the gap: the folded
// slots stay missed, and the next scan coalesces them again.
//
// An argv task's replay recorded them itself, between its granted claim and
// its command's start (RunRequest.Fold), so that a power cut in between
// leaves the claim dead and the gap whole for the next scan. A crontab
// line's replay runs in another process, which knows nothing of them: they
// are recorded here once the line has run (readBack). A power cut between
// that run's record and these leaves the gap to be coalesced again: a
// repeat, never a loss.
func (ts *TaskScan) settleFolds(ctx context.Context, st store.Store, m Machine, t store.Task, at, n int, slot time.Time) error {
	var ran *SlotAction // the replay of slot, if it ran for the gap
	for i := at + n; i < len(ts.Actions); i++ {
		a := ts.Actions[i]
		if !a.Slot.Equal(slot) {
			continue
		}
		if (t.Shell == "" && len(a.folded) == n) || (t.Shell != "" && a.ran) {
			ran = &ts.Actions[i]
		}
	}
	folds := ts.Actions[at : at+n]
	var ids []int64
	var err error
	switch {
	case ran != nil && t.Shell == "":
		ids = ran.folded
	case ran != nil:
		runs := make([]store.Run, n)
		for i, a := range folds {
			runs[i] = foldRecord(m, t.Name, a.Slot, a.Reason)
		}
		if ids, err = st.AddRuns(ctx, runs); err != nil {
			err = fmt.Errorf("task %s: record the slots coalesced into the replay of %s: %w", t.Name, formatSlot(ran.Slot, nil), err)
		}
	}
	for i := range folds {
		folds[i].Action, folds[i].NoExit = ActionSkipped, true
		if len(ids) == n {
			folds[i].RunID = ids[i]
			continue
		}
		folds[i].held = true
		folds[i].Reason = "not folded: the replay of the gap did not run here; the next scan coalesces it again"
		ts.Skipped-- // counted when it was planned: it stays missed, settled by nothing,
		ts.Left++    // left for the next scan, which coalesces it again
	}
	return err
}

// foldRecord is the record of a slot folded into a coalesced replay:
// skipped, with no exit code (so it settles the slot), reason saying which.
func foldRecord(m Machine, task string, slot time.Time, reason string) store.Run {
	now := m.Now()
	return store.Run{Task: task, Slot: slot, Trigger: store.TriggerReplay, Status: store.StatusSkipped,
		Attempt: 1, StartedAt: now, EndedAt: now, Host: m.Host, PID: m.PID, BootID: m.BootID, Error: reason}
}
