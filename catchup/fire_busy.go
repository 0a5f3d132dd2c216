package catchup

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/catchup/catchup/store"
)

// onBusy is what this fire does when the task's lock is held: replay
// (skip, exit 75; the slot stays missed), skip (skip, exit 75, and settle
// the slot) or wait. --wait and --on-busy say for this fire, else the
// task's registered policy. A replay never settles its slot as skipped.
func (l *lifecycle) onBusy() string {
	p := l.req.OnBusy
	if l.req.Wait {
		p = "wait"
	}
	if p == "" && l.registered != nil {
		p = l.registered.OnBusy
	}
	if p == "" || (p == "skip" && !l.req.ReplaySlot.IsZero()) {
		p = "replay"
	}
	return p
}

// busy deals with a fire that found the task's lock held. proceed means
// the lock is now this process's (after a wait). A lock held for a moment
// (lockGrace) does not count as held; a replay gave it that moment already.
// A fire that waits into the moment between two of scan's replays of the
// task (the lock free, the last replay's run still `running` while its
// outcome waits for the next claim) finds that run named by the task's
// held-outcome marker, so takes it for alive, not dead (outcomeHeld). A
// run that has claimed f's slot meanwhile (the lock's holder, say) makes f
// a duplicate.
func (l *lifecycle) busy(ctx context.Context, lock *taskLock, base *store.Run, f *fire) (res RunResult, proceed bool, err error) {
	policy := l.onBusy()
	limit := lockGrace
	switch {
	case policy == "wait":
		// What is left of --wait DUR, yet never less than the moment any
		// fire gives the lock (R2): a --wait fire whose DUR passed before
		// its wait (a slow ledger open), or a DUR under that moment, must
		// not skip its slot for a lock a reader holds for a moment.
		if limit = l.waitLeft(); limit > 0 {
			limit = max(limit, lockGrace)
		}
	case !l.req.ReplaySlot.IsZero():
		limit = -1
	}
	if limit >= 0 {
		if policy == "wait" {
			l.sayWaiting(ctx, 0)
		}
		got, err := l.waitForLock(ctx, lock, limit)
		if err == nil && ctx.Err() == nil && policy == "wait" && l.rereadAfterWait(ctx) {
			// Read in the fleet's zone now: the slot is that zone's.
			*f = l.retryByHand(ctx, l.resolveFire())
			base.Slot, base.Trigger = f.slot, f.trigger
		}
		switch {
		case got:
			return RunResult{}, true, nil
		case ctx.Err() != nil: // told to stop while waiting: run nothing
			return l.stoppedWaiting(ctx, *base), false, nil
		case err != nil:
			// The lock file could not be taken again (reopened after
			// its holder's was deleted): the command ran unrecorded,
			// and its hooks run as for any run (its end ping).
			res, err := l.writeFault(ctx, nil, *base, err)
			lock.close()
			l.finished(ctx, res)
			return res, false, err
		}
	}
	// Still held. A fire of this very slot that took the lock first and has
	// claimed the slot meanwhile makes this fire a duplicate.
	if res, dup := l.checkDuplicate(ctx, *f, false); dup {
		return res, false, nil
	}
	if policy == "skip" && !l.heldByAnotherSlot(ctx, f.slot) {
		// Settling the slot is right only beside a run of another slot. A
		// twin fire of this slot whose claim waits behind another writer
		// would run a slot settled here, and a cut of it would be lost: the
		// slot is left to scan instead, which finds it done if the twin ran.
		l.m.notice("task %s: cannot tell which run holds the lock, so its slot is left to scan, not settled (--on-busy skip)", l.req.Task)
		policy = "replay"
	}
	switch policy {
	case "wait":
		return l.lockSkip(ctx, *base, reasonLocked, exitCodePtr(exitLocked),
			fmt.Sprintf("task %s is still running after waiting %s (--wait); skipped, exit %d",
				l.req.Task, FormatDuration(l.req.WaitLimit), exitLocked)), false, nil
	case "skip":
		res := l.lockSkip(ctx, *base, reasonOnBusySkip, nil,
			fmt.Sprintf("task %s is already running (lock held); skipped, exit %d, and its slot settled (--on-busy skip)",
				l.req.Task, exitLocked))
		res.policySkip = true
		return res, false, nil
	}
	hint := "; --wait waits instead"
	if !l.req.ReplaySlot.IsZero() { // a scan's replay: scan has no --wait, and replays the slot next time
		hint = ""
	}
	res = l.lockSkip(ctx, *base, reasonLocked, exitCodePtr(exitLocked),
		fmt.Sprintf("task %s is already running (lock held); skipped, exit %d%s", l.req.Task, exitLocked, hint))
	if line := l.lockHolderLine(ctx, lock); line != "" {
		l.m.notice("%s", line)
	}
	return res, false, nil
}

// lockSkip records a fire that did not run because the task was busy. A
// record with exit code 75 leaves its slot missed (scan replays it); one
// without settles it (--on-busy skip). The fire registers its task first,
// as its claim would have: a first --cron fire, one that changes the
// schedule or zone (the old schedule's long run holds the lock), a fire of
// a retired task. Else the slot it leaves missed would belong to no
// schedule (or to a retired task, or lie before the change the next fire
// makes), and no reader would see it, nor any scan replay it.
func (l *lifecycle) lockSkip(ctx context.Context, base store.Run, reason string, code *int, notice string) RunResult {
	skip := base
	skip.Status, skip.Error, skip.ExitCode = store.StatusSkipped, reason, code
	now := l.m.Now() // one reading: the docs show a skip's duration as 0s
	skip.StartedAt, skip.EndedAt = now, now
	if l.req.ReplaySlot.IsZero() && !skip.Slot.IsZero() {
		if reg := l.registration(ctx, now, skip.Slot, false); reg != nil {
			if err := l.st.UpsertTask(ctx, *reg); err != nil {
				l.m.notice("task %s: cannot register its schedule: %v", l.req.Task, err)
			}
		}
	}
	// The skip proves this boot was up now, as a claim does (S7d): without
	// the sighting a reboot before the next scan left the boot's slots since
	// its last claim host-down.
	seeBootOrSay(ctx, l.st, l.m)
	id, err := l.st.AddRun(ctx, skip)
	if err != nil {
		l.m.notice("cannot record the skip: %v", err)
	}
	skip.ID = id
	if !l.req.Slot.IsZero() || l.waitedPast {
		giveBackPassed(ctx, l.st, l.m, skip) // a --slot fire's change counts from now, past its slot; so does a waited one's
	}
	l.m.notice("%s", notice)
	return RunResult{ExitCode: exitLocked, Run: skip, Skipped: true}
}

// stoppedWaiting ends a fire told to stop while it waited for its task's
// lock (SIGTERM to run --wait, a stopped daemon's --on-busy wait line):
// it runs nothing and records a lock skip (exit 75), as a wait that ran
// out does, so that its slot reads lock-busy for every reader (its fire
// came, and found the task busy), not not-fired, and scan replays it. It
// registers its task as every lock skip does (lockSkip): a first --cron
// fire so stopped must leave a slot some reader lists. The stop cancelled
// ctx, so both are written without its cancellation (a stopping daemon's
// give-up mark, a value, still bounds the writes' wait for a locked
// ledger). A replay (scan's, backfill's) records nothing: its slot keeps
// the cause it was missed for, and its scan or backfill reports it left.
func (l *lifecycle) stoppedWaiting(ctx context.Context, base store.Run) RunResult {
	if !l.req.ReplaySlot.IsZero() {
		l.m.notice("task %s: stopped while waiting for the lock; not run", l.req.Task)
		return RunResult{ExitCode: exitLocked, Skipped: true}
	}
	if l.onBusy() != "wait" {
		// Stopped in the moment every fire gives a held lock (lockGrace):
		// it never asked to wait, and is the lock skip it was about to be.
		return l.lockSkip(context.WithoutCancel(ctx), base, reasonLocked, exitCodePtr(exitLocked),
			fmt.Sprintf("task %s is already running (lock held); skipped, exit %d", l.req.Task, exitLocked))
	}
	return l.lockSkip(context.WithoutCancel(ctx), base, reasonStoppedWaiting, exitCodePtr(exitLocked),
		fmt.Sprintf("task %s: stopped while waiting for the lock; not run, recorded skipped, exit %d", l.req.Task, exitLocked))
}

// heldByAnotherSlot reports whether a live process of this host runs the
// task for a slot other than slot: what holds the lock a fire of slot found
// held. A record whose process is gone, or a holder that has not claimed
// yet, is not such a run.
func (l *lifecycle) heldByAnotherSlot(ctx context.Context, slot time.Time) bool {
	runs, err := l.st.Running(ctx)
	if err != nil {
		return false
	}
	for _, r := range runs {
		if r.Task == l.req.Task && !r.Slot.Equal(slot) && thisHost(l.st, l.m, r) && r.BootID == l.m.BootID &&
			processAlive(r.PID) {
			return true
		}
	}
	return false
}

// processAlive reports whether process pid exists (signal 0 reaches it, or
// is refused for want of permission).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// waitForLock is lock.waitFor, told to the machine's LockWait: a wait for
// the task's lock is no wait for the ledger.
func (l *lifecycle) waitForLock(ctx context.Context, lock *taskLock, limit time.Duration) (bool, error) {
	if l.m.LockWait != nil {
		l.m.LockWait(true)
		defer l.m.LockWait(false)
	}
	return lock.waitFor(ctx, limit)
}
