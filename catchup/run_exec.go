package catchup

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// lockGrace is how long a fire or a replay waits for a task lock it finds
// held before it counts as held: a lock held for a moment is not a running
// task (catchup's readers take it to tell a dead running record from a
// live one; a replay's child holds a copy between its fork and its exec).
const lockGrace = 500 * time.Millisecond

// run takes the lock, claims the slot and runs the attempts.
func (l *lifecycle) run(ctx context.Context) (RunResult, error) {
	f := l.resolveFire()
	l.sayResolved(f)
	l.backdateTo(ctx, f)
	if res, paused := l.pausedFire(ctx, f); paused {
		return res, nil
	}
	base := store.Run{Task: l.req.Task, Slot: f.slot, Trigger: f.trigger, Attempt: 1,
		Host: l.m.Host, PID: l.m.PID, BootID: l.m.BootID, Reason: f.reason()}

	lock, err := openTaskLock(l.m.LockDir, l.req.Task, l.m.UID)
	if err != nil {
		res, err := l.writeFault(ctx, nil, base, l.m.lockDirError(err))
		l.finished(ctx, res)
		return res, err
	}
	defer lock.close()
	ok, err := lock.tryLock()
	if !ok { // the previous replay's outcome is not held while this one waits
		if err := l.held.flush(ctx); err != nil {
			return RunResult{ExitCode: ExitInternal}, fmt.Errorf("%w: the outcome of task %s's previous replay is not recorded, so scan stops: %w",
				ErrReplayUnrecorded, l.req.Task, err)
		}
	}
	if !ok && err == nil && !l.req.ReplaySlot.IsZero() {
		// A process that another replay of this scan is starting holds a
		// copy of this descriptor between its fork and its exec: a replay
		// gives the lock a moment before it counts as held.
		if ok, err = l.waitForLock(ctx, lock, lockGrace); ctx.Err() != nil {
			ok, err = false, nil
		}
	}
	if err != nil {
		res, err := l.writeFault(ctx, nil, base, err)
		lock.close()
		l.finished(ctx, res)
		return res, err
	}
	if l.notesFirst(ctx, f) {
		return RunResult{Skipped: true, notedMeanwhile: !l.req.ReplaySlot.IsZero()}, nil
	}
	// A slot already settled (a duplicate fire) is checked before the lock
	// counts: a second fire while its slot runs is a duplicate, not a skip.
	if res, dup := l.checkDuplicate(ctx, f, ok); dup {
		return res, nil
	}
	f = l.retryByHand(ctx, f)
	base.Trigger = f.trigger
	waited := !ok // the task was busy as this fire came
	if !ok {
		res, proceed, err := l.busy(ctx, lock, &base, &f)
		if !proceed {
			return res, err
		}
		if res, dup := l.checkDuplicate(ctx, f, true); dup {
			return res, nil
		}
	}
	if res, left := l.deadFirst(ctx, lock, base, waited); left {
		return res, nil
	}
	return l.attempts(ctx, lock, base, false)
}

// claimAndRun is attempt's body: claim (with the outcome the claim carries),
// the checks that may make it a duplicate or a skip, a retry's delay, the
// task's fleet lock, then the command and its outcome.
func (l *lifecycle) claimAndRun(ctx context.Context, lock *taskLock, r store.Run, prev *retryHandoff,
	retryDue bool) (RunResult, bool, *retryHandoff, error) {
	now := l.m.Now()
	r.StartedAt = now
	// A replay resumes where an interrupted run of its slot stopped: the
	// claim reads that run's checkpoint. A replay, and a daemon's fire
	// (however late), refuse a slot recorded expired since; a replay and a
	// backfill, a task purged (or purged and registered again) or retired
	// since read.
	req := store.ClaimRequest{Run: r, Force: l.req.Force, Replay: r.Trigger == store.TriggerReplay || !l.req.FireSlot.IsZero(),
		Checkpoint: r.Attempt == 1 && r.Trigger == store.TriggerReplay && l.ownInterval(r.Slot), Registered: l.req.Registered}
	// A scheduled fire learns whether a run of an older slot is left
	// running, maybe dead, to replay it first (claimedDeadFirst).
	req.AskOlderRunning = r.Attempt == 1 && r.Trigger == store.TriggerSchedule && l.req.ReplaySlot.IsZero()
	if r.Attempt == 1 {
		req.Updated = l.req.Updated
	}
	// A scan's replay refuses a slot of a pause set since the scan read
	// the task: a pause holds from its start (T4).
	req.RefusePaused = r.Trigger == store.TriggerReplay
	if r.Attempt == 1 {
		req.Register = l.registration(ctx, now, r.Slot, true)
		// A scheduled fire whose claim finds the slot taken (another
		// host's fire claimed it since checkDuplicate looked) is a
		// duplicate: it registers only a change of schedule or zone.
		req.RegisterIfClaimed = r.Trigger == store.TriggerSchedule
		if l.m.BootID != "" {
			b := l.m.sighting()
			req.Boot = &b
		}
	}
	claimCtx := ctx
	if prev != nil { // the failed attempt's outcome, and its ledger lock
		req.Settle, req.LockFrom = prev.settle, prev.settle.ID
		if prev.delay > 0 {
			// Waiting out its delay until SetStarted: found dead meanwhile
			// (a power cut), it is a retry cut in its delay (R10).
			req.Run.Reason, _ = store.WaitingRetry(r.Reason)
		}
		claimCtx = context.WithoutCancel(ctx) // it records the failed attempt: a stop must not cut it
	} else {
		req.Settle = l.held.take() // the task's previous replay's outcome
	}
	claim, err := l.st.Claim(claimCtx, req)
	if l.m.Answered != nil {
		l.m.Answered()
	}
	if err != nil {
		switch {
		case prev != nil: // it failed with the claim: record it alone, and wait as the retry would
			l.recordOrSay(ctx, prev.settle.ID, prev.settle.Outcome)
			if !sleepCtx(ctx, prev.delay) {
				l.retryCutNotice(r.Attempt, prev.settle.Outcome.ExitCode)
				return RunResult{cutInDelay: true}, true, nil, nil
			}
		case req.Settle != nil:
			l.held.giveBack(req.Settle)
			l.held.flush(ctx)
		}
		if prev == nil {
			l.held.lost(err) // the claim before may not have synced
		}
		res, err := l.writeFault(ctx, lock, r, err)
		return res, true, nil, err
	}
	if req.Settle != nil && prev == nil {
		l.held.recorded(ctx, claim.Synced)
	}
	if claim.Gone { // purged (or purged and registered again) since read: it stays so
		if !l.req.Backfill { // a backfill says it once for the task (backfillTask)
			l.m.notice("slot %s of %s: its task was deleted meanwhile (catchup forget --purge); not running it",
				formatSlot(r.Slot, l.sched), l.req.Task)
		}
		return RunResult{Skipped: true, gone: true}, true, nil, nil
	}
	if claim.Retired { // retired since read: a replay or a backfill is no fire (T1)
		if !l.req.Backfill { // a backfill says it once for the task (backfillTask)
			l.m.notice("slot %s of %s: its task was retired meanwhile (catchup forget); not running it",
				formatSlot(r.Slot, l.sched), l.req.Task)
		}
		return RunResult{Skipped: true, retired: true}, true, nil, nil
	}
	if claim.Paused { // paused since the scan read it: the next scan records the slot paused
		l.m.notice("slot %s of %s: its task was paused meanwhile (catchup pause); not running it",
			formatSlot(r.Slot, l.sched), l.req.Task)
		return RunResult{Skipped: true, paused: true}, true, nil, nil
	}
	if claim.Changed { // registered again since the scan read it: the scan reads it again
		return RunResult{Skipped: true, changed: true}, true, nil, nil
	}
	req.Settle, req.LockFrom = nil, 0
	if !claim.Claimed && claim.Run.Status == store.StatusRunning && l.stale(claim.Run) {
		// We hold the task's lock, so a running record of ours is dead.
		if _, err := l.st.Interrupt(ctx, claim.Run.ID, deadBy(l.st, l.m, claim.Run), claimFoundDead(l.st, l.m, claim.Run)); err != nil {
			res, err := l.writeFault(ctx, lock, r, err)
			return res, true, nil, err
		}
		if claim, err = l.st.Claim(ctx, req); err != nil {
			res, err := l.writeFault(ctx, lock, r, err)
			return res, true, nil, err
		}
	}
	if !claim.Claimed {
		return l.claimRefused(ctx, r, claim.Run), true, nil, nil
	}
	r = claim.Run
	if res, taken := l.takenSince(ctx, r, claim.Touched); taken {
		return res, true, nil, nil
	}
	if res, twin := l.twinOfFailed(ctx, r, claim.Touched); twin {
		return res, true, nil, nil
	}
	if res, folded := l.foldedMeanwhile(ctx, r, claim.Touched); folded {
		return res, true, nil, nil
	}
	if err := l.giveBackDeadFolds(ctx, r); err != nil {
		res, err := l.writeFault(ctx, lock, r, err)
		return res, true, nil, err
	}
	if prev != nil {
		prev.release() // the claim handed the lock to r (a no-op on the row): let go of the failed attempt's
		prev.release = nil
		if cut := l.waitRetryDelay(ctx, &r, prev); cut {
			return RunResult{cutInDelay: true}, true, nil, nil
		}
	}
	release, ok, unreachable := l.lockFleet(ctx, r)
	if !ok {
		return RunResult{ExitCode: exitLocked, Run: r, Skipped: true, lockUnreachable: unreachable, rowLocked: l.rowLocked}, true, nil, nil
	}
	if l.fleetWaited || claim.OlderRunning { // a dead run's older slot goes first
		waited := l.fleetWaited
		l.fleetWaited = false
		var res RunResult
		if release, res, ok = l.claimedDeadFirst(ctx, lock, &r, release, waited); !ok {
			return res, true, nil, nil
		}
	}
	releaseNow := true // unless handed to a retry
	defer func() {
		if releaseNow {
			release()
		}
	}()
	var folded []int64
	if r.Attempt == 1 && len(l.req.Fold) > 0 {
		if folded, err = l.fold(ctx); err != nil {
			// Not run: the claimed record stays running, and is found
			// dead (the lock is free) by the next scan, which coalesces
			// the whole gap again.
			res, err := l.writeFault(ctx, lock, r, err)
			return res, true, nil, err
		}
		if at := l.foldHeld(ctx, folded); !at.IsZero() {
			res, err := l.heldBack(ctx, r, at, folded)
			if err != nil {
				res, err = l.writeFault(ctx, lock, r, err)
			}
			return res, true, nil, err
		}
	}
	if r.Attempt == 1 {
		l.started(ctx)
		l.checkpoint = l.passableCheckpoint(claim.Checkpoint, formatSlot(r.Slot, l.sched))
	}
	held, stopBeats := l.heartbeats(ctx, r.ID)
	res := l.execute(ctx, held, lock, r)
	stopBeats()
	if res.Stopped && prev != nil { // a retry a stop kept from starting: cut, as in its delay
		return RunResult{cutInDelay: l.cutRetry(ctx, r, prev, "stopped by a signal to catchup before its retry started")}, true, nil, nil
	}
	out, stopped := l.attemptOutcome(ctx, res, &r, leaseLost(held))
	done := out.Status == store.StatusSucceeded || !res.Started || stopped || !retryDue
	result := RunResult{ExitCode: res.ExitCode, Run: r, Ran: res.Started, Folded: folded, Stopped: res.Stopped}
	if !done { // its retry's claim records this outcome and takes the lock over
		delay := l.retryNoticed(r.Attempt, res.ExitCode)
		releaseNow = false
		return result, false, &retryHandoff{settle: &store.Settlement{ID: r.ID, Outcome: out}, release: release, delay: delay}, nil
	}
	var recErr error
	l.oweRunAlert(r, out) // before the outcome can commit: a kill after it loses no alert
	if !l.held.holds(l) || !l.held.keep(r, &store.Settlement{ID: r.ID, Outcome: out}) {
		if recErr = l.record(ctx, r.ID, out); recErr != nil {
			l.spoolOutcome(r, out, recErr)
			l.held.lost(recErr) // what its claim carried may be lost with it
		} else {
			l.held.synced()
			if giveBackPassed(ctx, l.st, l.m, r); !leaseLost(held) {
				l.sayLateOutcome(ctx, r)
			}
		}
	} // else recorded by the next replay's claim
	if recErr != nil && !l.req.ReplaySlot.IsZero() {
		// Scan stops here: its next replay could not be recorded either.
		what := "scan stops before its next replay"
		if l.req.Backfill {
			what = "backfill stops before its next slot"
		}
		return RunResult{ExitCode: res.ExitCode, Run: r, Ran: res.Started}, true, nil,
			fmt.Errorf("%w: the outcome of run %d (slot %s of %s) is not recorded, so %s: %w",
				ErrReplayUnrecorded, r.ID, formatSlot(r.Slot, l.sched), r.Task, what, recErr)
	}
	return result, true, nil, nil
}

// stale reports whether a running record cannot belong to a live process,
// given that this process holds the task's lock on this host: a record of
// this host (on a local ledger, any record: see findStale) is then dead,
// unless, on a shared ledger, its process lives within its lease (its lock
// may be under another state directory: aliveElsewhere). Another host's
// record is alive until its lease expires (shared ledgers).
func (l *lifecycle) stale(r store.Run) bool {
	return (thisHost(l.st, l.m, r) && !outcomeHeld(l.m, r) && !aliveElsewhere(l.st, l.m, r)) || leaseExpired(l.st, l.m, r)
}
