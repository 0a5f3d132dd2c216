package catchup

import (
	"context"
	"errors"
	"os"
	"slices"

	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// payOwedAlerts runs the alerts that scans now gone owed (oweAlert), each
// for the slots the ledger holds expired by that scan (its host, boot and
// pid), then removes it. One that owes nothing (killed before its first
// expiry was recorded, or cut short while it was written) is removed
// without an alert. One the ledger cannot be asked about now stays for the
// next scan; one that only uid could not have written is refused, said,
// and left where it is. A dry run never calls it: the alerts stay owed.
func payOwedAlerts(ctx context.Context, st store.Store, m Machine) {
	if m.LockDir == "" || lockDir(m.LockDir, m.UID, false) != nil {
		return // no lock directory of this user's: none kept there (a planted one is said by the locks)
	}
	for _, path := range owedAlertFiles(m) {
		a, err := readOwedAlert(path, m.UID)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // another scan paid it meanwhile
		case errors.Is(err, errOwedAlertTorn):
			m.notice("alert owed %s is %v; its scan was killed before it recorded anything: removed", path, err)
			os.Remove(path)
			continue
		case errors.Is(err, filetrust.ErrRefused):
			m.notice("%v: not sending it", err)
			continue
		case err != nil:
			m.notice("cannot read the alert owed %s (%v): the next scan tries again", path, err)
			continue
		}
		ts, err := owedExpiries(ctx, st, a)
		if err != nil {
			m.notice("cannot read which slots of task %s the scan that owes alert %s recorded expired (%v): the next scan tries again",
				a.Task, path, err)
			continue
		}
		if ts.Expired > 0 {
			m.notice("task %s: %d slots that catchup (pid %d) recorded expired were never alerted (it ended before its alert ran): alerting them now",
				a.Task, ts.Expired, a.PID)
			alertExpired(ctx, m, a.Cmd, store.Task{Name: a.Task}, ts)
		}
		(&owedAlertFile{path: path}).paid(m)
	}
}

// owedExpiries is what owed alert a stands for: the slots of its task
// that the ledger holds expired by its scan (its host, boot and pid),
// oldest first, with their causes.
func owedExpiries(ctx context.Context, st store.Store, a owedAlert) (TaskScan, error) {
	ts := TaskScan{Task: a.Task, Policy: a.Policy}
	if len(a.Slots) == 0 {
		return ts, nil
	}
	owed, first, last := a.slotSet()
	runs, err := st.SlotRuns(ctx, a.Task, first, last, 0)
	if err != nil {
		return ts, err
	}
	seen := map[int64]bool{}
	for _, r := range runs {
		s := r.Slot.Unix()
		cause, ok := owed[s]
		if !ok || seen[s] || r.Slot.IsZero() || r.Status != store.StatusExpired ||
			r.Host != a.Host || r.BootID != a.BootID || r.PID != a.PID {
			continue // not this scan's expiry: another's alerts it
		}
		seen[s] = true
		ts.Expired++
		ts.Actions = append(ts.Actions, SlotAction{Slot: r.Slot, Action: ActionExpired, RunID: r.ID, Reason: r.Error, Cause: cause})
	}
	slices.SortFunc(ts.Actions, func(x, y SlotAction) int { return x.Slot.Compare(y.Slot) })
	return ts, nil
}
