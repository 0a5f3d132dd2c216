package catchup

import (
	"context"
	"errors"

	"github.com/catchup/catchup/store"
)

// spoolOutcome notes the outcome of claimed run r that the ledger did not
// take (its disk filled while the job ran, say): recorded by the next scan
// before it looks for missed slots, so that the slot, which ran, is not run
// again. Without the note the run stays `running` until scan takes it for
// interrupted and replays it.
func (l *lifecycle) spoolOutcome(r store.Run, out store.Outcome, cause error) {
	noteOutcome(l.m, r, out, cause)
}

// noteOutcome is spoolOutcome for m's ledger: also for a replay's outcome
// that scan held for the next claim (heldOutcome.flush).
//
// A run whose ledger file was deleted or replaced while it ran (a backup
// restored) is noted too, as moved: its record is in the file gone, and the
// file now at the path holds a copy of its claim (made while it ran) or
// none (an older backup), so that the note finishes that claim or stands
// for the fire of its slot (recordOutcomes). Before, it was not noted: its
// slot, which ran, read missed or its copied claim dead, and was run again.
func noteOutcome(m Machine, r store.Run, out store.Outcome, cause error) {
	moved := errors.Is(cause, store.ErrLedgerMoved)
	e := spoolEntry{Task: r.Task, Slot: r.Slot, Trigger: r.Trigger, Host: r.Host, BootID: r.BootID, PID: r.PID,
		StartedAt: r.StartedAt, EndedAt: out.EndedAt, Ran: true, Status: out.Status, ExitCode: out.ExitCode,
		Error: cause.Error(), RunID: r.ID, Signal: out.Signal, RunError: out.Error,
		StdoutTail: out.StdoutTail, StderrTail: out.StderrTail}
	// What its record as a fire needs (noteRun), should the ledger then
	// hold no claim of it: a moved file's, or one a failing disk lost.
	e.Moved, e.ByHand, e.BootTime = moved, store.RetryStarts(r.Reason) == store.ReasonByHand, m.BootTime
	if err := writeNote(m, e); err != nil {
		m.notice("cannot keep a note of the outcome of run %d either (%v): the next scan will take it for interrupted and replay its slot", r.ID, err)
		return
	}
	if moved {
		m.notice("the outcome of run %d is noted on this host for the next scan to record in the ledger now at its path", r.ID)
		return
	}
	if errors.Is(cause, errRecordStopped) {
		m.notice("stopped before the outcome of run %d was recorded: it is noted on this host for its next scan to record", r.ID)
		return
	}
	m.notice("the outcome of run %d is noted on this host for its next scan to record", r.ID)
}

// recordOutcomes records the outcome notes among entries (spoolOutcome)
// and returns the other entries. An outcome is recorded only on a run of
// its task that is still running, or that a scan elsewhere took for
// interrupted (a late outcome, which lands on the run's own record as over
// a reconnection; the slot keeps a replay that took it meanwhile): one the
// ledger took meanwhile keeps what it has.
func recordOutcomes(ctx context.Context, st store.Store, entries []spoolEntry) ([]spoolEntry, int, error) {
	rest, n := entries[:0:0], 0
	for _, e := range entries {
		if e.RunID == 0 {
			rest = append(rest, e)
			continue
		}
		r, err := st.Run(ctx, e.RunID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, 0, err // kept for the next scan (putBack)
		}
		if err != nil || !sameClaim(r, e) {
			// Its claim is not in this file (an older backup; a claim the
			// disk lost with the outcome, an I/O error; or a run of
			// another fire under its id, which SQLite gives a lost claim's
			// id): the fire of its slot, which ran. Before, a note whose
			// claim was lost was dropped, and its slot run again.
			e.RunID, e.Moved = 0, false
			rest = append(rest, e)
			continue
		}
		// A run another host's scan marked interrupted (its lease ran out
		// while the outcome could not be written) takes its outcome late, as
		// over a reconnection; one that ended otherwise keeps its record.
		if r.Status != store.StatusRunning && r.Status != store.StatusInterrupted {
			continue
		}
		out := store.Outcome{Status: e.Status, ExitCode: e.ExitCode, Signal: e.Signal, EndedAt: e.EndedAt,
			StdoutTail: e.StdoutTail, StderrTail: e.StderrTail, Error: e.RunError}
		if err := st.Finish(ctx, e.RunID, out); err != nil {
			return nil, 0, err
		}
		n++
	}
	return rest, n, nil
}

// sameClaim reports whether run r is the claim outcome note e was written for
// (for a moved note, copied into the ledger file now at the path): the same
// task and slot, fired by the same process of the same boot (an id alone
// names another run in another file, or after a lost claim in this one).
func sameClaim(r store.Run, e spoolEntry) bool {
	return r.Task == e.Task && r.Slot.Equal(e.Slot) && r.Host == e.Host && r.PID == e.PID && r.BootID == e.BootID
}
