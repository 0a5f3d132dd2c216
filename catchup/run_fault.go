package catchup

// Ledger faults: a fire whose ledger cannot be opened or written still runs
// its command, unrecorded, unless --strict, or unless the ledger is shared
// and cannot be reached (no host could claim the slot), or unless it is a
// replay: a replay runs only once its claim is recorded, since the slot it
// stands for is missed in the ledger until then, and every later scan would
// run it again.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// unrecorded runs the command without the ledger: a bookkeeping fault must
// not cause the very missed run catchup exists to prevent.
func (l *lifecycle) unrecorded(ctx context.Context, cause error) (res RunResult, err error) {
	defer func() { res.LedgerFault = ledgerFault(cause) }()
	l.unread = true
	if res, refused := l.refuseUnclaimed(l.resolveFire(), cause); refused {
		return res, nil
	}
	if l.req.Strict {
		l.spoolFire(l.resolveFire(), nil, cause)
		return RunResult{ExitCode: ExitInternal}, fmt.Errorf("ledger unavailable, not running (--strict): %w", cause)
	}
	if !l.req.ReplaySlot.IsZero() {
		return l.refuseReplay(l.req.ReplaySlot, cause)
	}
	// Said at once, as ever, unless this host keeps notes: then before a
	// lock skip, or once the command is to run, never by a twin that runs
	// nothing, whose one line says why (notedHolder, lineTwinOf).
	said := false
	unavailable := func() {
		if !said {
			said = true
			l.m.notice("ledger unavailable, running %s unrecorded: %v", l.req.Task, cause)
		}
	}
	if !hasNotes(l.m) {
		unavailable()
	}
	f := l.resolveFire() // before the command runs: a long job stands for this slot still
	slot, trigger := f.slot, f.trigger
	lock, err := openTaskLock(l.m.LockDir, l.req.Task, l.m.UID)
	if err != nil {
		lock = nil // no lock directory either: run anyway
	} else {
		defer lock.close()
		ok, err := lock.tryLock()
		switch {
		case err == nil && !ok && !l.req.Wait:
			unavailable()
			l.m.notice("task %s is already running (lock held); skipped, exit %d", l.req.Task, exitLocked)
			l.spoolFire(f, nil, errLocked)
			return RunResult{ExitCode: exitLocked, Skipped: true}, nil
		case err == nil && !ok:
			// --wait DUR bounds this wait as a recorded fire's (waitLeft,
			// from the fire's start): once DUR has passed, a lock skip,
			// noted for the next scan, which replays the slot.
			got, err := lock.waitFor(ctx, l.waitLeft())
			switch {
			case ctx.Err() != nil: // a lock skip, noted as a recorded fire's is (stoppedWaiting)
				unavailable()
				l.m.notice("task %s: stopped while waiting for the lock; not run, noted skipped, exit %d", l.req.Task, exitLocked)
				l.spoolFire(f, nil, errLocked)
				return RunResult{ExitCode: exitLocked, Skipped: true}, nil
			case err != nil:
				lock = nil
			case !got:
				unavailable()
				l.m.notice("task %s is still running after waiting %s (--wait); skipped, exit %d",
					l.req.Task, FormatDuration(l.req.WaitLimit), exitLocked)
				l.spoolFire(f, nil, errLocked)
				return RunResult{ExitCode: exitLocked, Skipped: true}, nil
			}
		case err != nil:
			lock = nil
		}
	}
	if !slot.IsZero() && hasNotes(l.m) && l.notedHolder(readPendingNotes(l.m), nil, f) {
		return RunResult{Skipped: true}, nil // its note waits for the next scan
	}
	if l.lineFireUnread(f) && hasNotes(l.m) && l.lineTwinOf(readPendingNotes(l.m), l.m.Now()) {
		return RunResult{Skipped: true}, nil // the first fire's note waits for the next scan
	}
	if !slot.IsZero() && hasNotes(l.m) {
		f = l.notedRetryByHand(readPendingNotes(l.m), f)
		trigger = f.trigger
	}
	unavailable()
	res = l.attemptsUnrecorded(ctx, lock, f, store.Run{Task: l.req.Task, Slot: slot, Trigger: trigger, Attempt: 1}, cause)
	lock.close() // the task is free before the hooks, as after a recorded run
	// The result as Run returns it (BeforeHooks reads it): its deferred
	// LedgerFault is set only after the hooks.
	res.LedgerFault = ledgerFault(cause)
	l.finished(ctx, res)
	return res, nil
}

// writeFault reports a ledger write fault before the command started, and
// runs its attempts unrecorded unless refused; the caller runs the hooks
// (finished) once the lock is released.
func (l *lifecycle) writeFault(ctx context.Context, lock *taskLock, r store.Run, err error) (res RunResult, ferr error) {
	defer func(cause error) { res.LedgerFault = ledgerFault(cause) }(err)
	fr := fire{slot: r.Slot, trigger: r.Trigger}
	if fix := lockFault(err); fix != "" && !l.req.ReplaySlot.IsZero() {
		// The ledger is fine: the scan stops there, saying why, rather
		// than count the slot's lock held.
		return RunResult{ExitCode: ExitInternal}, fmt.Errorf("not replaying slot %s of %s without this host's lock for it; "+
			"the next scan replays it once %s: %w", formatSlot(r.Slot, l.sched), l.req.Task, fix, lockCause(err))
	}
	if res, refused := l.refuseUnclaimed(fr, err); refused {
		return res, nil
	}
	if l.req.Strict {
		l.spoolFire(fr, nil, err)
		if fix := lockFault(err); fix != "" {
			return RunResult{ExitCode: ExitInternal}, fmt.Errorf("not running %s without this host's lock for it (--strict; the ledger is fine): "+
				"the next scan replays its slot once %s: %w", l.req.Task, fix, lockCause(err))
		}
		return RunResult{ExitCode: ExitInternal}, fmt.Errorf("cannot record the run (--strict): %w", err)
	}
	if !l.req.ReplaySlot.IsZero() {
		return l.refuseReplay(r.Slot, err)
	}
	if errors.Is(err, ErrOpenLockFile) {
		l.m.notice("%s", openLockFileNotice(l.req.Task, err))
	} else {
		l.m.notice("cannot record the run, running %s unrecorded: %v", l.req.Task, err)
	}
	return l.attemptsUnrecorded(ctx, lock, fr, r, err), nil
}

// ledgerFault is cause, a fault of the ledger, or nil when it is none: a
// stop that cut the ledger's answer, or this host's lock (its directory
// refused or not to be made, its file not to be opened).
func ledgerFault(cause error) error {
	if cause == nil || errors.Is(cause, context.Canceled) || errors.Is(cause, filetrust.ErrRefused) || lockFault(cause) != "" {
		return nil
	}
	return cause
}

// lockFault is, when cause is a fault of this host's lock for the task
// that its user can fix (the ledger is fine), when the lock can be taken
// again; "" for any other cause.
func lockFault(cause error) string {
	switch {
	case errors.Is(cause, ErrCreateLockDir):
		return "the lock directory can be made"
	case errors.Is(cause, ErrOpenLockFile) && errors.Is(cause, syscall.EROFS):
		return "its lock file can be opened: " + readOnlyFix
	case errors.Is(cause, ErrOpenLockFile):
		return "its lock file can be opened: remove or fix what is at its path"
	}
	return ""
}

// hostLockFault reports whether cause is a fault of this host's lock for
// the task, which its fire's note carries (spoolEntry.LockFault): its file
// not to be opened, its directory not to be made (lockFault), or either
// refused (filetrust.ErrRefused, which no ledger gives: ledgerFault).
func hostLockFault(cause error) bool {
	return cause != nil && (lockFault(cause) != "" || errors.Is(cause, filetrust.ErrRefused))
}

// readOnlyFix is the fix for a lock file on a file system mounted
// read-only, where the ledger beside it cannot be written either.
const readOnlyFix = "its file system is read-only: remount it read-write, or point catchup at a writable directory (--db, CATCHUP_DB or CATCHUP_STATE_DIR)"

// openLockFileNotice is what a fire that runs unrecorded, its task's lock
// file not to be opened, says: the ledger is fine, unless the file system
// they share is read-only.
func openLockFileNotice(task string, cause error) string {
	why := "the ledger is fine; remove or fix what is at the lock file's path: catchup makes the file anew"
	if errors.Is(cause, syscall.EROFS) {
		why = readOnlyFix
	}
	return fmt.Sprintf("cannot open task %s's lock file, running %s unrecorded (%s): %v", task, task, why, lockCause(cause))
}

// lockCause is cause without ErrOpenLockFile's words, which the message
// around it says: the system's error, naming the file; it still wraps cause.
func lockCause(cause error) error {
	var pe *fs.PathError
	if errors.Is(cause, ErrOpenLockFile) && errors.As(cause, &pe) {
		return quietCause{said: pe, cause: cause}
	}
	return cause
}

// quietCause says said and wraps cause, which holds it.
type quietCause struct{ said, cause error }

func (q quietCause) Error() string { return q.said.Error() }
func (q quietCause) Unwrap() error { return q.cause }

// refuseUnclaimed is the default with a shared ledger that cannot be
// reached: without a claim, every host would run the slot, so none does
// (exit 75); the next scan replays it. --fail-open runs it anyway.
func (l *lifecycle) refuseUnclaimed(fr fire, cause error) (RunResult, bool) {
	if !l.req.Shared || l.req.FailOpen {
		return RunResult{}, false
	}
	if errors.Is(cause, context.Canceled) { // a stop (SIGTERM to the daemon) cut the claim: no outage
		l.m.notice("stopped before task %s claimed its slot: not run; the next scan replays it", l.req.Task)
		return RunResult{ExitCode: exitLocked, Skipped: true}, true
	}
	if errors.Is(cause, filetrust.ErrRefused) { // the ledger is reachable; this host's lock is not
		l.m.notice("not running %s: this host's lock for it is refused, and without it two fires here could run one slot; "+
			"the next scan replays it once the lock directory is fixed (--fail-open runs it anyway): %v", l.req.Task, cause)
		l.spoolFire(fr, nil, cause)
		return RunResult{ExitCode: exitLocked, Skipped: true}, true
	}
	if fix := lockFault(cause); fix != "" { // the ledger is fine; this host's lock cannot be taken
		l.m.notice("not running %s without this host's lock for it (two fires here could run one slot; "+
			"the next scan replays it once %s; --fail-open runs it anyway): %v", l.req.Task, fix, lockCause(cause))
		l.spoolFire(fr, nil, cause)
		return RunResult{ExitCode: exitLocked, Skipped: true}, true
	}
	what := "unreachable"
	switch {
	case errors.Is(cause, store.ErrLedgerLocked): // it answered: another session held the task's row
		what = "reached, but another session held the task's row past the lock timeout; it cannot record the claim"
	case !errors.Is(cause, store.ErrLedgerUnreachable):
		what = "cannot record the claim" // it answered: a statement error (a statement timeout, a missing schema)
	}
	l.m.notice("shared ledger %s %s: not running %s, so that no two hosts run one slot; "+
		"the next scan replays it (--fail-open runs it anyway): %v", l.m.Where, what, l.req.Task, cause)
	l.spoolFire(fr, nil, cause)
	return RunResult{ExitCode: exitLocked, Skipped: true}, true
}

// ErrReplayUnrecorded marks a replay that was not run because its claim
// could not be recorded, or whose outcome could not be: scan stops there,
// before its next replay, so that nothing runs that the ledger cannot hold.
var ErrReplayUnrecorded = errors.New("the ledger cannot be written")

// refuseReplay is a replay whose claim could not be recorded: it does not
// run (exit 125), and the slot stays missed for the next scan. A
// backfill's slot is run by a backfill again: no scan replays a slot
// before the task's registration, nor one it recorded expired.
func (l *lifecycle) refuseReplay(slot time.Time, cause error) (RunResult, error) {
	if l.req.Backfill {
		return RunResult{ExitCode: ExitInternal}, fmt.Errorf("%w: not backfilling slot %s of %s, since a backfill runs a slot only once its claim is recorded; "+
			"catchup backfill runs it once the ledger can be written: %w",
			ErrReplayUnrecorded, formatSlot(slot, l.sched), l.req.Task, cause)
	}
	return RunResult{ExitCode: ExitInternal}, fmt.Errorf("%w: not replaying slot %s of %s, since a replay runs only once its claim is recorded; "+
		"the next scan replays it once the ledger can be written: %w",
		ErrReplayUnrecorded, formatSlot(slot, l.sched), l.req.Task, cause)
}
