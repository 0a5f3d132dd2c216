package catchup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/catchup/catchup/catchup/notify"
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
// stopped reports that catchup was stopped while it paid one (left owed).
func payOwedAlerts(ctx context.Context, st store.Store, m Machine) (stopped bool) {
	if m.LockDir == "" || lockDir(m.LockDir, m.UID, false) != nil {
		return false // no lock directory of this user's: none kept there (a planted one is said by the locks)
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
		// Taken before it is paid, under this process's pid (one rename: a
		// scan beside this one finds it gone, or this process's, alive), so
		// that one scan pays it; killed while it pays, the next pays it.
		found := path
		if path, err = takeOwedAlert(m, found); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				m.notice("cannot take the alert owed %s (%v): the next scan tries again", found, err)
			}
			continue // another scan took it meanwhile
		}
		if a.Run != nil {
			switch payRunAlert(ctx, st, m, a, notify.As{}) {
			case runAlertDone:
				(&owedAlertFile{path: path}).paid(m)
			case runAlertStopped:
				releaseOwed(path)
				return true
			default:
				releaseOwed(path)
			}
			continue
		}
		ts, deleted, gone, err := owedExpiries(ctx, st, a)
		if err != nil {
			releaseOwed(path)
			m.notice("cannot read which slots of task %s the scan that owes alert %s recorded expired (%v): the next scan tries again",
				a.Task, path, err)
			continue
		}
		if ts.Expired > 0 {
			m.notice("task %s: %d slots that catchup (pid %d) recorded expired were never alerted (it ended before its alert ran): alerting them now",
				a.Task, ts.Expired, a.PID)
			switch {
			case deleted > 0 && gone:
				m.notice("task %s: %d slots that catchup (pid %d) recorded expired were deleted with their task (catchup forget --purge) before their alert ran: alerting them as it planned them",
					a.Task, deleted, a.PID)
			case deleted > 0:
				m.notice("task %s: %d slots that catchup (pid %d) recorded expired were pruned from the ledger before their alert ran: alerting them as it planned them",
					a.Task, deleted, a.PID)
			}
			reg, err := st.Task(ctx, a.Task)
			// Where it would have run (owedAlertDir), checked again there (taskAlertDir).
			t := store.Task{Name: a.Task, Dir: owedAlertDir(m, a, reg, err == nil).Dir}
			aerr := alertExpired(ctx, m, a.Cmd, t, ts)
			if ctx.Err() != nil || errors.Is(aerr, notify.ErrCutShort) {
				// Stopped while its alert ran (its command may have died of
				// the stop): owed still, to the next scan (its payer, this
				// process, gone by then).
				m.notice("task %s: stopped while it alerted the slots catchup (pid %d) recorded expired: the next scan alerts them again",
					a.Task, a.PID)
				releaseOwed(path)
				return true
			}
		}
		(&owedAlertFile{path: path}).paid(m)
	}
	return false
}

// owedExpiries is what owed alert a stands for: the slots of its task
// that the ledger holds expired by its scan (its host, boot and pid),
// oldest first, with their causes; and, among them, how many it holds no
// record of at all at or before the task's prune floor: a prune (of
// another host, or another user, that could not pay this alert first)
// deleted the records they stand for, and they are alerted as the scan
// planned them; so are all those it holds no record of when the task is
// gone (gone: a purge of another host deleted it, its records with it),
// or registered later than the scan read it (a purge, then a fire that
// registered it anew).
// Never lost to a prune or a purge, then; at worst repeated, where the
// scan was killed before its expiries were committed and another process
// recorded and alerted those slots before the prune.
func owedExpiries(ctx context.Context, st store.Store, a owedAlert) (ts TaskScan, deleted int, gone bool, err error) {
	ts = TaskScan{Task: a.Task, Policy: a.Policy}
	if len(a.Slots) == 0 {
		return ts, 0, false, nil
	}
	owed, first, last := a.slotSet()
	runs, err := st.SlotRuns(ctx, a.Task, first, last, 0)
	if err != nil {
		return ts, 0, false, err
	}
	seen, held := map[int64]bool{}, map[int64]bool{}
	for _, r := range runs {
		s := r.Slot.Unix()
		held[s] = held[s] || !r.Slot.IsZero()
		cause, ok := owed[s]
		if !ok || seen[s] || r.Slot.IsZero() || r.Status != store.StatusExpired ||
			r.Host != a.Host || r.BootID != a.BootID || r.PID != a.PID {
			continue // not this scan's expiry: another's alerts it
		}
		seen[s] = true
		ts.Expired++
		ts.Actions = append(ts.Actions, SlotAction{Slot: r.Slot, Action: ActionExpired, RunID: r.ID, Reason: r.Error, Cause: cause})
	}
	if len(held) < len(owed) {
		t, err := st.Task(ctx, a.Task)
		gone = errors.Is(err, store.ErrNotFound)
		if err != nil && !gone {
			return ts, 0, false, err
		}
		purged := gone
		for s, cause := range owed {
			slot := time.Unix(s, 0).UTC()
			switch {
			case held[s]:
				continue
			case gone || a.Registered != 0 && t.RegisteredAt.Unix() > a.Registered:
				// Deleted with its task by a purge; the task found
				// registered later than the scan read it is a new one
				// (a fire of another host of a shared ledger since).
				purged = true
			case t.PrunedThrough.IsZero() || slot.After(t.PrunedThrough):
				continue // not pruned: the scan was killed before it recorded it
			}
			deleted++
			ts.Expired++
			ts.Actions = append(ts.Actions, SlotAction{Slot: slot, Action: ActionExpired, Cause: cause})
		}
		gone = purged
	}
	slices.SortFunc(ts.Actions, func(x, y SlotAction) int { return x.Slot.Compare(y.Slot) })
	return ts, deleted, gone, nil
}

// takeOwedAlert renames the owed alert at path to a name of this
// process's (its pid, a new sequence number) and returns it: the rename
// either takes it whole or fails (os.ErrNotExist: another scan took it).
// The file keeps its content; its name now says who pays it.
func takeOwedAlert(m Machine, path string) (string, error) {
	for {
		name := owedAlertPrefix + strconv.Itoa(m.PID) + "." + strconv.FormatInt(owedAlertSeq.Add(1), 10) + owedAlertSuffix
		taken := filepath.Join(m.LockDir, name)
		if _, err := os.Lstat(taken); err == nil {
			continue // an earlier process of this pid left one: its own to pay
		}
		holdOwed(taken) // before it is there: no scan of this process takes it from this one
		err := os.Rename(path, taken)
		if err != nil {
			releaseOwed(taken)
		}
		return taken, err
	}
}
