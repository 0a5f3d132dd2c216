package catchup

import (
	"cmp"
	"context"
	"strconv"

	"github.com/catchup/catchup/store"
)

// claimRefused is what an attempt whose claim of run r's slot was refused
// comes to, h being the record that holds the slot: a fire's duplicate
// record, else a skip with a line naming h (nothing is recorded).
func (l *lifecycle) claimRefused(ctx context.Context, r, h store.Run) RunResult {
	slot := formatSlot(r.Slot, l.sched)
	switch {
	case h.Status == store.StatusExpired:
		// A replay's or a daemon's fire's (store.ClaimRequest.Replay):
		// given up since the scan read it or the fire's timer was set
		// (forget, a schedule change, another host's scan), so that no
		// slot holds both an expired record and a run. No duplicate.
		doing := "replaying"
		if r.Trigger != store.TriggerReplay {
			doing = "running"
		}
		l.m.notice("slot %s of %s was recorded expired meanwhile (%s); not %s it",
			slot, l.req.Task, cmp.Or(h.Reason, "run "+strconv.FormatInt(h.ID, 10)), doing)
	case r.Trigger == store.TriggerSchedule:
		// Its claim registered only a change of schedule or zone
		// (store.ClaimRequest.RegisterIfClaimed): its line says what else
		// of it differs, as checkDuplicate's does.
		l.duplicateKeeps(l.m.Now(), r.Slot)
		return l.duplicate(ctx, r.Slot, h)
	case h.Status == store.StatusSucceeded && r.Trigger == store.TriggerReplay:
		// Run since the scan read the task: another scan's replay, a fire.
		// Scan has no --force; its own replay is said once per task (SaysMeanwhile).
		if !l.req.SaysMeanwhile {
			l.m.notice("slot %s of %s ran meanwhile (%s): another scan or a fire ran it since this scan read the task; not replaying it",
				slot, l.req.Task, succeededRun(h))
		}
	case h.Status == store.StatusSucceeded:
		anyway := "--force to run anyway"
		if l.req.Backfill { // backfill has no --force: --only all is its
			anyway = "backfill --only all runs it anyway"
		}
		l.m.notice("slot %s of %s already succeeded (%s); not running it again (%s)", slot, l.req.Task, succeededRun(h), anyway)
	case l.claimSaid[h.ID]: // said at the slot's first try
	default:
		if l.claimSaid != nil {
			l.claimSaid[h.ID] = true
		}
		l.m.notice("slot %s of %s claimed by %s (run %d)", slot, l.req.Task, h.Host, h.ID)
	}
	return RunResult{Run: h, Skipped: true}
}
