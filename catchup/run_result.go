package catchup

import "github.com/catchup/catchup/store"

// RunResult is what happened, for the exit status and for scan.
type RunResult struct {
	ExitCode int
	Run      store.Run // the last attempt (zero ID when nothing was recorded)
	Ran      bool      // the command was started
	Skipped  bool      // lock held, or the slot was already done
	Folded   []int64   // the records of req.Fold, in order, once recorded
	// Stopped: a stop came before the command started, which did not
	// start: recorded interrupted (no exit status), its slot left to the
	// next scan; ExitCode is 128+N when the runner caught signal N, else
	// 125 (cmd exits 128+N for the signal that stopped catchup).
	Stopped bool
	// LedgerFault: the ledger could not record this fire (unreachable, or
	// its claim refused by a statement error): it was not run (a shared
	// ledger, --strict) or ran unrecorded. Nil for a stop or a lock fault.
	LedgerFault error
	// cutInDelay: a retry stopped during its delay (recorded interrupted)
	cutInDelay bool
	// policySkip: skipped by --on-busy skip, its slot settled (exit 75 too)
	policySkip bool
	// lockUnreachable: a shared ledger's task lock could not be taken, the
	// ledger out of reach: skipped (exit 75), its claim given back
	lockUnreachable bool
	rowLocked       bool // so skipped, or its claim refused: another session held the task's row (store.ErrLedgerLocked)
	// gone: a replay's claim refused, its task no longer in the ledger
	// (forget --purge since the scan read it: store.ClaimResult.Gone)
	gone bool
	// retired: a replay's or a backfill's claim refused, its task retired
	// (catchup forget) since read: store.ClaimResult.Retired
	retired bool
	// paused: a scan's replay's claim refused, its slot one of a pause
	// set since the scan read the task (store.ClaimResult.Paused)
	paused bool
	// changed: a scan's replay's claim refused, its task registered again
	// since the scan read it (store.ClaimResult.Changed)
	changed bool
	// failedMeanwhile: a replay's or a backfill's claim given back because
	// another run of the slot failed since (takenSince): the slot stays
	// failed, for scan --retry-failed, and is not settled
	failedMeanwhile bool
	// notedMeanwhile: a replay that ran nothing, its slot's fire noted
	// on this host since the scan read the notes (notedSincePlanned): not
	// settled until the next scan records the note
	notedMeanwhile bool
}

// LeftMissed reports a fire that ran nothing and left its slot missed, for
// a replay to run: its task's lock was held by another run (here, or on
// another host of a fleet: a lock skip, exit 75), or the ledger could not
// record it. Not a duplicate, a pause or a policy's skip (--on-busy skip:
// exit 75 too): those settle their slot.
func (r RunResult) LeftMissed() bool {
	lockSkip := r.Skipped && r.ExitCode == exitLocked && !r.policySkip
	return !r.Ran && (r.LedgerFault != nil || lockSkip)
}
