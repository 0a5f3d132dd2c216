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
func noteOutcome(m Machine, r store.Run, out store.Outcome, cause error) {
	if errors.Is(cause, store.ErrLedgerMoved) {
		return // its record is in a file gone: run r of the one there now is another
	}
	e := spoolEntry{Task: r.Task, Slot: r.Slot, Trigger: r.Trigger, Host: r.Host, BootID: r.BootID, PID: r.PID,
		StartedAt: r.StartedAt, EndedAt: out.EndedAt, Ran: true, Status: out.Status, ExitCode: out.ExitCode,
		Error: cause.Error(), RunID: r.ID, Signal: out.Signal, RunError: out.Error,
		StdoutTail: out.StdoutTail, StderrTail: out.StderrTail}
	if err := writeNote(m, e); err != nil {
		m.notice("cannot keep a note of the outcome of run %d either (%v): the next scan will take it for interrupted and replay its slot", r.ID, err)
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
		// A run another host's scan marked interrupted (its lease ran out
		// while the outcome could not be written) takes its outcome late, as
		// over a reconnection; one that ended otherwise keeps its record.
		if err != nil || r.Task != e.Task || (r.Status != store.StatusRunning && r.Status != store.StatusInterrupted) {
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
