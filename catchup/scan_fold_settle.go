package catchup

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/store"
)

// settleFolds settles the slots scan --replay coalesce folded into the
// replay of the gap's latest slot, slot (ts.Actions[at:at+n], in slot
// order; the replay comes after them), but only if that replay ran here,
// told the whole gap (CATCHUP_PREV_SLOT), and succeeded. A replay that did
// not run here (its slot taken by another run, which is told only its own
// slot's predecessor; the budget spent; its claim not recorded) covered
// nothing of the gap; one that failed, timed out or was cut short did not
// settle it: the folded slots stay missed (an argv task's, recorded before
// its command started, are given back), and the next scan replays them,
// whatever its policy (a plain scan after a one-off --replay coalesce
// lost the gap before: no run was told it).
//
// An argv task's replay recorded them itself, between its granted claim and
// its command's start (RunRequest.Fold), so that a scan planning meanwhile
// (or a backfill's claim: foldedMeanwhile) leaves them to it, and a power
// cut in between leaves the claim dead and the gap whole for the next scan
// (one coalescing it again: a scan of another policy then replays the
// latest slot alone). A crontab line's replay runs in another process,
// which knows nothing of them: scan records them before it runs the line
// (foldBeforeLine), and gives them back if the line did not run for the
// gap or did not succeed (readBack).
//
// The failed slots before the gap that the replay covered too (g.covered)
// are recorded folded once it succeeded: --retry-failed must not run
// their intervals again.
//
// A folded slot whose replay did not run here, that another run took since
// the scan read the task (read: the newest run id it read; above all a
// second scan's coalesced replay of the same gap, which recorded it folded
// and runs it) is that run's: it stays skipped, not left for the next scan.
func (ts *TaskScan) settleFolds(ctx context.Context, st store.Store, m Machine, t store.Task, at int, g replaySpan, read int64, rule MissedRule) error {
	n, slot := len(g.fold), g.slot
	var replay *SlotAction // the replay of slot, if it ran for the gap
	var givenUp *store.Run // its slot's expiry, if it was given up meanwhile (a line's)
	for i := at + n; i < len(ts.Actions); i++ {
		a := ts.Actions[i]
		if !a.Slot.Equal(slot) {
			continue
		}
		switch {
		case len(a.folded) == n && (t.Shell == "" || a.ran):
			replay = &ts.Actions[i]
		case len(a.folded) > 0: // a line's, recorded before it: it did not run for the gap
			if err := giveBackFolds(ctx, st, m, t.Name, a.folded, "without running for the gap", slot); err != nil {
				return err
			}
			if a.givenUp != nil {
				// Its slot was given up meanwhile (forget, a change), which
				// read the gap settled by these folds: the gap is given up
				// with it, or its slots would be missed again with no scan
				// to replay them, and no record. Their alert is owed
				// first, as the window's expiries' is (oweAlert): this
				// scan's alert is the only place they are told.
				ts.oweGivenUp(m, t, g.fold, ts.Actions[at:at+n], *a.givenUp)
				if err := giveUpFolds(ctx, st, m, t.Name, g.fold, *a.givenUp); err != nil {
					return err
				}
				givenUp = a.givenUp
			}
		}
	}
	folds := ts.Actions[at : at+n]
	settled := replay != nil && replay.Action == ActionReplayed
	var ids []int64
	var err error
	switch {
	case settled:
		ids = replay.folded
		if len(g.covered) > 0 {
			runs := make([]store.Run, len(g.covered))
			for i, s := range g.covered {
				runs[i] = foldRecord(m, t.Name, s, g.reason)
			}
			if _, err = st.AddRunsOf(ctx, store.OfLive(t.RegisteredAt), runs); err != nil { // none of a task purged or retired since
				err = fmt.Errorf("task %s: record the failed slots the replay of %s covered: %w", t.Name, formatSlot(slot, nil), err)
			}
		}
	case replay != nil && !takenOver(ctx, st, t.Name, *replay):
		err = giveBackFolds(ctx, st, m, t.Name, replay.folded, replay.Status, slot)
	}
	var taken map[int64]store.Run
	if replay == nil && givenUp == nil && len(ids) != n {
		taken = takenSinceRead(ctx, st, t.Name, g.fold, read, rule)
	}
	for i := range folds {
		folds[i].Action, folds[i].NoExit = ActionSkipped, true
		if givenUp != nil {
			folds[i].Action, folds[i].Reason = ActionExpired, fmt.Sprintf("given up with slot %s, recorded expired meanwhile (%s)",
				formatSlot(slot, nil), givenUp.Reason)
			ts.Skipped--
			ts.Expired++
			continue
		}
		if len(ids) == n {
			folds[i].RunID = ids[i]
			continue
		}
		folds[i].held = true // the watermark stays below it: that run may yet give it back
		if o, ok := taken[folds[i].Slot.Unix()]; ok {
			folds[i].RunID, folds[i].Reason = o.ID, takenReason(o)
			continue // counted skipped when planned: another run's, nothing left
		}
		folds[i].Reason = "not folded: the replay of the gap did not run here; the next scan coalesces it again"
		if replay != nil {
			folds[i].Reason = fmt.Sprintf("not settled: the replay of the gap %s; the next scan replays this slot", unsettledWhy(replay))
		}
		folds[i].left = true
		ts.Skipped-- // counted when it was planned: it stays missed, settled by nothing,
		ts.Left++    // left for the next scan
	}
	return err
}

// takenOver reports whether another run holds slot a.Slot of task, running
// or succeeded, since a's replay, which was taken for dead (its host
// frozen or cut off past its lease) and the slot replayed elsewhere, told
// the gap its folds still stand for (standingFolds). The folds are that
// replay's now, to keep or to give back: given back here, the gap it ran
// was missed again, and run a second time. Only a shared ledger's run is
// taken for dead while its process lives; a read that fails gives back.
func takenOver(ctx context.Context, st store.Store, task string, a SlotAction) bool {
	if !st.Shared() || a.RunID == 0 {
		return false
	}
	runs, err := st.SlotRuns(ctx, task, a.Slot, a.Slot, 0)
	if err != nil {
		return false
	}
	dead, other := false, false
	for _, r := range runs {
		switch {
		case r.ID == a.RunID:
			dead = strings.Contains(r.Error, store.LateOutcomeNote)
		case r.ID > a.RunID && r.Slot.Equal(a.Slot) && (r.Status == store.StatusRunning || r.Status == store.StatusSucceeded):
			other = true
		}
	}
	return dead && other
}

// unsettledWhy says how a replay of a gap that ran ended without success.
func unsettledWhy(a *SlotAction) string {
	switch {
	case a.Action == ActionInterrupted:
		return "was interrupted"
	case a.Status != "":
		return a.Status
	}
	return "did not succeed"
}

// giveBackFolds turns the folded records ids (skipped, no exit code: they
// settled their slots) into skips with exit 0, which settle nothing, and
// lowers the watermark below them (a scan beside this one may have moved it
// past them while the replay ran): the replay of slot that stood for them
// ended status.
func giveBackFolds(ctx context.Context, st store.Store, m Machine, task string, ids []int64, status string, slot time.Time) error {
	out := store.Outcome{Status: store.StatusSkipped, ExitCode: exitCodePtr(0), EndedAt: m.Now(),
		Error: fmt.Sprintf("coalesced into the replay of slot %s, which ended %s: given back, missed again", formatSlot(slot, nil), status)}
	if err := st.GiveBack(ctx, ids, out); err != nil {
		return fmt.Errorf("task %s: give back the slots coalesced into the replay of %s: %w", task, formatSlot(slot, nil), err)
	}
	return nil
}

// giveUpFolds records the slots of a coalesced line's gap expired, as its
// own slot was meanwhile (rec: that record's reason and code). Unchecked
// (AddRuns): that record is a retirement's (forget) or a prune's, which a
// purge deletes with the task; a line's run revives a retired task (a new
// registration), and the gap is recorded all the same, as its slot was.
func giveUpFolds(ctx context.Context, st store.Store, m Machine, task string, slots []time.Time, rec store.Run) error {
	now := m.Now()
	runs := make([]store.Run, len(slots))
	for i, s := range slots {
		runs[i] = store.Run{Task: task, Slot: s, Trigger: store.TriggerReplay, Status: store.StatusExpired, Attempt: 1,
			StartedAt: now, EndedAt: now, Host: m.Host, PID: m.PID, BootID: m.BootID, Error: rec.Error, Reason: rec.Reason}
	}
	if _, err := st.AddRuns(ctx, runs); err != nil {
		return fmt.Errorf("task %s: record expired the slots coalesced into a replay given up meanwhile: %w", task, err)
	}
	return nil
}

// foldRecord is the record of a slot folded into a coalesced replay:
// skipped, with no exit code (so it settles the slot), reason saying which.
func foldRecord(m Machine, task string, slot time.Time, reason string) store.Run {
	now := m.Now()
	return store.Run{Task: task, Slot: slot, Trigger: store.TriggerReplay, Status: store.StatusSkipped,
		Attempt: 1, StartedAt: now, EndedAt: now, Host: m.Host, PID: m.PID, BootID: m.BootID, Error: reason}
}

// foldsAfter notes a crontab line's folds (lineFolds) on its replay a, for
// settleFolds, and gives back the standing folds of a killed replay that
// this one, told their gap, did not settle either: from then on the
// watermark of ts stays below them.
func (a *SlotAction) foldsAfter(ctx context.Context, st store.Store, m Machine, ts *TaskScan, span replaySpan, lineFolds []int64) error {
	if lineFolds != nil {
		a.folded = lineFolds
	}
	if len(span.standing) > 0 && (a.Action == ActionFailed || a.Action == ActionInterrupted) {
		if ts.gaveBackFrom.IsZero() || span.standingFrom.Before(ts.gaveBackFrom) {
			ts.gaveBackFrom = span.standingFrom
		}
		return giveBackFolds(ctx, st, m, ts.Task, span.standing, a.Status, a.Slot)
	}
	return nil
}
