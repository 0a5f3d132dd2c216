package catchup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// Liveness on a shared ledger: the flock covers one host only, so a run
// also holds the task's ledger-wide lock, and renews a heartbeat that other
// hosts read; a running record whose heartbeat is older than the lease is
// dead (its host crashed or lost the network), and any host's scan
// interrupts it and replays the slot.

// maxHeartbeat is the longest interval between heartbeats.
const maxHeartbeat = 10 * time.Second

// heartbeatEvery is the interval for a lease: several beats per lease, so
// that one lost beat does not expire a live run.
func heartbeatEvery(lease time.Duration) time.Duration {
	if lease <= 0 {
		return maxHeartbeat
	}
	return min(maxHeartbeat, max(lease/6, 100*time.Millisecond))
}

// leaseExpired reports whether another host's running record has missed
// its heartbeats for longer than the lease.
func leaseExpired(st store.Store, m Machine, r store.Run) bool {
	if !st.Shared() || m.Lease <= 0 || r.Host == m.Host {
		return false
	}
	last := r.Heartbeat
	if last.IsZero() {
		last = r.StartedAt
	}
	return m.Now().Sub(last) > m.Lease
}

// lockFleet takes the task's ledger-wide lock for a claimed run. When
// another host runs the task, a fire (not scan's replay) whose --on-busy
// policy is wait (or --wait), and a backfill's run, which waits for the
// task's lock on its own host too, waits for it, up to --wait DUR, its
// claim kept alive by heartbeats; otherwise (or once the wait is over) the
// claim is given back as a lock skip (the slot stays missed; scan replays
// it) and ok is false. A lock that could not be taken because of the
// ledger (out of reach, a statement error) gives the claim back the same
// way, recorded with the reason ledger-unreachable (its slot's cause), and
// unreachable is true.
func (l *lifecycle) lockFleet(ctx context.Context, r store.Run) (release func(), ok, unreachable bool) {
	if !l.st.Shared() {
		return func() {}, true, false
	}
	waits := l.onBusy() == "wait" && (l.req.ReplaySlot.IsZero() || l.req.Backfill)
	var limit <-chan time.Time
	if waits && l.req.WaitLimit > 0 {
		t := time.NewTimer(l.waitLeft()) // what the wait for the lock here left
		defer t.Stop()
		limit = t.C
	}
	reason, stopped, code := reasonLocked+" on another host", false, ""
	for waited := false; ; waited = true {
		var tookFrom int64
		release, ok, err := l.st.LockTask(ctx, store.TaskLock{Task: l.req.Task, RunID: r.ID, Now: l.m.Now(), Lease: l.m.Lease, TookFrom: &tookFrom})
		if err == nil && ok {
			l.takeDeadHolder(ctx, tookFrom)
			if waited && !l.stillClaimed(ctx, r.ID) {
				// Taken for dead while it waited (its heartbeats late), its
				// slot replayed elsewhere: it must not run now.
				release()
				l.m.notice("task %s: run %d was taken for dead while it waited for the task's run on another host; not run, exit %d",
					l.req.Task, r.ID, exitLocked)
				return nil, false, false
			}
			l.fleetWaited = waited
			return release, true, false
		}
		if err != nil {
			reason = "cannot take the task's ledger lock: " + err.Error()
			if !errors.Is(err, context.Canceled) { // a stop is no ledger fault
				// Unreachable, or a statement error (a lock or statement
				// timeout): the ledger's fault, as for a claim (refuseUnclaimed).
				code = store.ReasonUnreachable
				if errors.Is(err, store.ErrLedgerLocked) {
					code = store.ReasonLedgerLocked // reached, its task's row held by another session
					l.rowLocked = true
				}
			}
			break
		}
		if !waits {
			break
		}
		if !waited {
			l.sayWaiting(ctx, r.ID)
		}
		select {
		case <-ctx.Done():
			reason, stopped = "stopped while waiting for the task's run on another host", true
		case <-limit:
			reason = fmt.Sprintf("still running on another host after waiting %s (--wait)", FormatDuration(l.req.WaitLimit))
		case <-time.After(fleetWaitPoll):
			_ = l.st.Heartbeat(ctx, r.ID, l.m.Now()) // the claim stays alive while it waits
			continue
		}
		break
	}
	if reason == reasonLocked+" on another host" {
		reason = l.fleetHeldReason(ctx, r.ID)
	}
	l.recordOrSay(ctx, r.ID, store.Outcome{Status: store.StatusSkipped, EndedAt: l.m.Now(),
		ExitCode: exitCodePtr(exitLocked), Error: reason, Reason: code})
	if stopped && l.req.Backfill {
		// Said as a wait for the lock on this host says it (stoppedWaiting):
		// the backfill reports the slot left and exits 128+N, not 75.
		l.m.notice("task %s: stopped while waiting for the lock; not run", l.req.Task)
		return nil, false, false
	}
	l.m.notice("task %s: %s; skipped, exit %d", l.req.Task, reason, exitLocked)
	return nil, false, code != ""
}

// fleetWaitPoll is how often a fire that waits for another host's run of
// its task tries the task's ledger lock again (two short connections each).
const fleetWaitPoll = time.Second

// stillClaimed reports whether run id is still running: no other host
// took it for dead and marked it interrupted.
func (l *lifecycle) stillClaimed(ctx context.Context, id int64) bool {
	r, err := l.st.Run(ctx, id)
	return err == nil && r.Status == store.StatusRunning
}

// errLeaseLost is the cause of a held context cancelled because a
// heartbeat found its run marked interrupted: another host took it for dead
// (this host, or its link to the ledger, stalled for longer than the lease)
// and replays its slot.
var errLeaseLost = errors.New("lease lost")

// heartbeats renews run id's heartbeat until the returned stop is called.
// held is the run's command's context: never cancelled by a stop signal
// (the runner forwards those), it is cancelled when a heartbeat finds the
// lease lost, with errLeaseLost as its cause (leaseLost): the command must
// not go on beside the replay of its slot.
func (l *lifecycle) heartbeats(ctx context.Context, id int64) (held context.Context, stop func()) {
	held, lose := context.WithCancelCause(context.WithoutCancel(ctx))
	if !l.st.Shared() {
		return held, func() { lose(nil) }
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(heartbeatEvery(l.m.Lease))
		defer t.Stop()
		warned := false
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				written := l.m.ledgerWrite(WriteHeartbeat)
				err := l.st.Heartbeat(ctx, id, l.m.Now())
				written()
				if errors.Is(err, store.ErrNotRunning) {
					l.leaseLostNotice(id)
					lose(errLeaseLost)
					return
				}
				if err != nil && !warned && ctx.Err() == nil {
					l.m.notice("heartbeat of run %d: %v (the command goes on)", id, err)
					warned = true
				}
			}
		}
	}()
	return held, func() { cancel(); <-done; lose(nil) }
}

// leaseLostNotice says that run id lost its lease.
func (l *lifecycle) leaseLostNotice(id int64) {
	l.m.notice("task %s: run %d lost its lease: another host took it for dead (its slot is replayed there, or by a scan); "+
		"stopping the command (this host or its link to the ledger stalled for longer than --lease %s)",
		l.req.Task, id, FormatDuration(l.m.Lease))
}

// leaseLost reports whether held (from heartbeats) ended with the lease.
func leaseLost(held context.Context) bool {
	return errors.Is(context.Cause(held), errLeaseLost)
}

// errRecordStopped marks an outcome whose retries a stop cut short.
var errRecordStopped = errors.New("stopped before it was recorded")

// record writes a run's outcome. On a shared ledger that went away, or
// that cancelled the write for a cause that passes (a statement or lock
// timeout the server is set with, a deadlock), it retries with backoff
// until the outcome is recorded, or until catchup is told to stop
// (errRecordStopped, said by the caller: recordOrSay, or spoolOutcome,
// which notes the outcome): the command is never killed because the ledger
// is gone. It returns the error when the outcome could not be recorded.
// Before, a cancelled write was given up at once: the run stayed running
// without heartbeats, and another host's scan after the lease ran its slot
// again (e2e TestFleetOutcomeOutlastsATimeout). A write cancelled again
// and again is given up (to the caller's note) once the retries have
// waited the lease: by then another host may have taken the run for dead,
// and a server that cancels every try is no passing cause.
func (l *lifecycle) record(ctx context.Context, id int64, out store.Outcome) error {
	var waited time.Duration // on cancelled writes
	for delay := time.Second; ; delay = min(2*delay, 30*time.Second) {
		written := l.m.ledgerWrite(WriteOutcome)
		err := l.st.Finish(context.WithoutCancel(ctx), id, out)
		written()
		if err == nil {
			return nil
		}
		switch {
		case !l.st.Shared():
			l.m.notice("cannot record the outcome of run %d: %v", id, err)
			return err
		case errors.Is(err, store.ErrLedgerUnreachable):
			l.m.notice("ledger unreachable; recording the outcome of run %d again in %s", id, FormatDuration(delay))
		case (errors.Is(err, store.ErrLedgerLocked) || errors.Is(err, store.ErrLedgerCancelled)) && waited < l.m.Lease:
			l.m.notice("cannot record the outcome of run %d yet: %v; recording it again in %s", id, err, FormatDuration(delay))
			waited += delay
		default:
			l.m.notice("cannot record the outcome of run %d: %v", id, err)
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", errRecordStopped, err)
		case <-time.After(delay):
		}
	}
}

// recordOrSay is record for an outcome that no note keeps: a stop that
// cut its retries short leaves the run running in the ledger, until a
// scan takes it for interrupted.
func (l *lifecycle) recordOrSay(ctx context.Context, id int64, out store.Outcome) {
	if err := l.record(ctx, id, out); errors.Is(err, errRecordStopped) {
		l.m.notice("stopped before the outcome of run %d was recorded: scan will replay its slot", id)
	}
}
