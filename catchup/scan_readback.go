package catchup

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// lastRunOf is the highest id among the runs of task's slot (0 for none,
// or when the ledger cannot be read): a crontab line's run is a later one.
func lastRunOf(ctx context.Context, st store.Store, task string, slot time.Time) int64 {
	runs, _ := st.SlotRuns(ctx, task, slot, slot, 0)
	var id int64
	for _, r := range runs {
		if r.Slot.Equal(slot) {
			id = max(id, r.ID)
		}
	}
	return id
}

// replayLine runs slot through task t's crontab line and judges it by the
// ledger (readBack); then says what becomes of a slot left held.
func replayLine(ctx context.Context, st store.Store, m Machine, t store.Task, sr *shellReplay,
	slot time.Time, span replaySpan, env []string, then string) (SlotAction, error) {
	before := lastRunOf(ctx, st, t.Name, slot)
	a, err := replayShell(ctx, m, t, sr, slot, span, env)
	if err != nil || a.stoppedFirst {
		return a, err // the line never started: nothing to read back
	}
	// Exit 75 too: the line's run ran nothing (the task was running), or its
	// job exited 75 itself, a failure: the ledger tells them apart.
	a = readBack(ctx, st, t.Name, m.Host, before, a, then)
	a.lockSkipped = a.Action == ActionSkipped && a.ExitCode == exitLocked
	return a, nil
}

// latestFailed reports whether the latest record of slot among runs, skips
// and cut runs aside, failed.
func latestFailed(runs []store.Run, slot time.Time) bool {
	var last *store.Run
	for i, r := range runs {
		if r.Slot.Equal(slot) && r.Status != store.StatusSkipped && r.Status != store.StatusInterrupted && (last == nil || r.ID > last.ID) {
			last = &runs[i]
		}
	}
	return last != nil && failedStatus(last.Status)
}

// readBack judges a replay through a crontab line by the ledger, not by the
// line's exit status, which cannot tell apart a run of the slot from a
// `catchup run` that found it held by a running run (another host's fire,
// which may yet give its claim back as a lock skip) or done elsewhere (both
// exit 0), nor a line that hid its run's failure (`...; true`) from one
// that failed before any run started. The line's own run is the latest
// finished run of the slot by this host after before (the slot's last run
// id before the line ran):
//   - it succeeded: replayed; it failed or timed out: failed (ran set:
//     the replay ran, for the gap it was told of);
//   - none, but another run settles the slot: skipped, done elsewhere;
//   - none, and a run holds it, running, or nothing settles it: skipped and
//     held, so the watermark stays below it and the next scan reads it
//     again (also when the ledger cannot be read: one more look);
//   - none, but one cut short when the scan was stopped: interrupted;
//   - none after exit 75: skipped and held, as above (the task was running,
//     or the line's catchup could not record);
//   - none after a non-zero exit: failed, not ran (nothing started).
//
// then is what becomes of a held slot, for its reason ("the next scan
// looks again").
func readBack(ctx context.Context, st store.Store, task, host string, before int64, a SlotAction, then string) SlotAction {
	// Read also when a signal stopped the scan or backfill: the line's run
	// it cut short is then in the ledger, to be reported interrupted (a
	// PostgreSQL read with ctx would fail, leaving the line's exit status).
	runs, err := st.SlotRuns(context.WithoutCancel(ctx), task, a.Slot, a.Slot, 0)
	var own, ownSkip, ownCut, ownRunning, settled *store.Run
	running := false
	var holder store.Run
	for i, r := range runs {
		mine := r.ID > before && r.Host == host
		if a.lineRuns != nil { // the line's catchup run said which is its own
			mine = r.ID > before && slices.Contains(a.lineRuns, r.ID)
		}
		switch {
		case err != nil || !r.Slot.Equal(a.Slot):
		case r.Status == store.StatusRunning:
			running = true
			if mine {
				ownRunning = &runs[i]
			}
			if holder.ID == 0 {
				holder = runs[i] // whose, for the warning
			}
		case mine && r.Status != store.StatusSkipped && r.Status != store.StatusInterrupted && r.Status != store.StatusExpired:
			own = &runs[i] // an expiry is never the line's run: forget or a change here while it started
		case mine && r.Status == store.StatusInterrupted:
			ownCut = &runs[i] // cut short when the scan was stopped
		case mine && r.Status == store.StatusSkipped && r.Error != "":
			ownSkip = &runs[i] // the line's run said why it ran nothing
		case settles(r, MissedRule{}, nil) && r.Status != store.StatusFailed && r.Status != store.StatusTimeout:
			settled = &runs[i]
		}
	}
	if ownSkip != nil && gaveBackSince(ownSkip.Error) && (own == nil || ownSkip.ID > own.ID) {
		// The line's run gave its claim back: another run of the slot was
		// made since the scan read the task (that run, of this host too,
		// is not the line's), and it settles the slot, or it failed and
		// the slot stays failed.
		a.Action, a.RunID, a.Reason = ActionSkipped, ownSkip.ID, ownSkip.Error
		a.failedMeanwhile = latestFailed(runs, a.Slot)
		return a
	}
	switch {
	case own != nil && (own.Status == store.StatusFailed || own.Status == store.StatusTimeout):
		a.Action, a.RunID, a.ran = ActionFailed, own.ID, true
		if own.ExitCode != nil {
			a.ExitCode = *own.ExitCode
		}
		// Its run was claimed: an exit 75 is the job's own, not a run that
		// ran nothing; the run says when its command did not start.
		a.Reason = notStarted(*own)
		if a.ExitCode == 0 {
			a.Reason = "the line exited 0, but its run " + own.Status
		}
		return a
	case own != nil:
		a.Action, a.RunID, a.ran, a.ExitCode = ActionReplayed, own.ID, true, 0
		return a
	case ownCut != nil && ctx.Err() != nil:
		a.Action, a.RunID, a.ran, a.Reason = ActionInterrupted, ownCut.ID, true, reasonCut
		return a
	case ownRunning != nil && ctx.Err() != nil:
		// The scan was stopped, and the line's run is still running: its
		// job ignored the stop and outlived the line's catchup run (killed
		// with what was left of the line after its grace). Not the line's
		// exit status (its shell died of the stop at once), nor cut short:
		// held, as a run still running holds a slot, for the next scan.
		a.Action, a.RunID, a.held, a.running, a.holder = ActionSkipped, ownRunning.ID, true, true, ownRunning
		a.ExitCode, a.NoExit = 0, true
		a.Reason = fmt.Sprintf("its run %d is still running: its job outlived the stop of the scan; %s", ownRunning.ID, then)
		return a
	case a.Action == ActionFailed:
		return a // the line failed before any run of the slot was recorded
	case settled != nil && settled.Status == store.StatusExpired:
		a.Action, a.RunID, a.givenUp = ActionSkipped, settled.ID, settled
		a.Reason = fmt.Sprintf("recorded expired meanwhile (%s): not replayed", settled.Reason)
		return a
	case settled != nil:
		a.Action, a.RunID = ActionSkipped, settled.ID
		a.Reason = fmt.Sprintf("done elsewhere: run %d on %s, %s", settled.ID, settled.Host, settled.Status)
		return a
	}
	a.Action, a.held, a.running = ActionSkipped, true, running && err == nil
	a.lineSkip = ownSkip != nil
	if a.running {
		a.holder = &holder
	}
	switch {
	case err != nil:
		a.Reason = fmt.Sprintf("the line exited %d, but its slot could not be read back (%v)", a.ExitCode, err)
	case running:
		a.Reason = "not run here: another run holds the slot, running"
	case ownSkip != nil:
		a.Reason = "the line ran nothing: " + ownSkip.Error
	default:
		a.Reason = fmt.Sprintf("the line exited %d, but the ledger holds no outcome for the slot", a.ExitCode)
	}
	a.Reason += "; " + then
	return a
}
