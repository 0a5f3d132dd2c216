package catchup

import (
	"context"

	"github.com/catchup/catchup/store"
)

// twinOfFailed gives back the claim of the own fire of slot (ownFire) whose
// earlier run failed or timed out meanwhile: the twin of a fire on another
// host (its own lock) looked before that run's claim, and claims once it
// has failed, which a failed slot allows. It is recorded as the duplicate
// it is (skipped, exit 0), and runs nothing. Only a slot that had runs
// before the claim (touched) is read again: a fire's normal path is not.
func (l *lifecycle) twinOfFailed(ctx context.Context, r store.Run, touched bool) (RunResult, bool) {
	if !touched || r.Trigger != store.TriggerSchedule || r.Attempt != 1 || l.req.Force || !l.ownFire(r.Slot) {
		return RunResult{}, false
	}
	runs, err := l.st.SlotRuns(ctx, r.Task, r.Slot, r.Slot, 0)
	if err != nil {
		return RunResult{}, false // the claim decides
	}
	for _, o := range runs {
		if o.ID >= r.ID || !o.Slot.Equal(r.Slot) || (o.Status != store.StatusFailed && o.Status != store.StatusTimeout) {
			continue
		}
		s := formatSlot(r.Slot, l.sched)
		l.recordOrSay(ctx, r.ID, store.Outcome{Status: store.StatusSkipped, EndedAt: l.m.Now(), ExitCode: exitCodePtr(0),
			Error: ReasonDuplicate + s})
		l.m.notice("duplicate fire of slot %s of %s: it %s; recorded skipped, not run again (%s)",
			s, l.req.Task, holderState(o), againHint(o))
		r.Status, r.ExitCode, r.Error = store.StatusSkipped, exitCodePtr(0), ReasonDuplicate+s
		return RunResult{Run: r, Skipped: true}, true
	}
	return RunResult{}, false
}
