package catchup

import (
	"time"

	"github.com/catchup/catchup/store"
)

// SlotAction is what scan did (or would do) with one missed slot.
type SlotAction struct {
	Slot     time.Time
	Action   string
	RunID    int64
	ExitCode int
	NoExit   bool   // nothing ran for the slot (coalesced into a later replay): no exit status
	Status   string // the status of the replay's run as recorded (""; unknown: a crontab line's replay)
	Reason   string
	Cause    string // why the slot was missed
	// held: the slot is not settled yet. Skipped because another run held
	// it, running (that run may still give it back: a lock skip on another
	// host), or replayed through a crontab line that left no outcome for
	// it in the ledger (readBack).
	held bool
	// running: held because a run of the slot is running (readBack, or
	// the claim's holder); scan ends the task's replays there, a backfill
	// tries the slot again after the others.
	running bool
	// holder: the run found holding the slot, running (its id, host, pid
	// and trigger say whose in the warning); nil when not known. A
	// pointer: a scan keeps one SlotAction per slot, and a gap of a year
	// is half a million of them.
	holder *store.Run
	// folded: a coalesced replay's records of the gap's other slots,
	// recorded with its claim (argv tasks).
	folded []int64
	// ran: a replay through a crontab line whose own run of the slot is
	// recorded (readBack).
	ran bool
	// givenUp: not run because the slot was recorded expired since scan
	// read it (forget, a schedule change): that record. A coalesced
	// line's folds, recorded before it, are given up with it.
	givenUp *store.Run
	// stoppedFirst: a crontab line's replay the scan's stop kept from
	// starting: nothing ran nor was recorded.
	stoppedFirst bool
	// lockSkipped: not run because the task was running (a lock skip),
	// not because its job exited 75 itself.
	lockSkipped bool
	// unreachable: of lockSkipped, not run because the ledger went out of
	// reach (its claim or the task's ledger lock), not a running task.
	unreachable bool
	// rowLocked: of unreachable, the ledger reached, but another session
	// held the task's row past the lock timeout (store.ErrLedgerLocked).
	rowLocked bool
	// gone: not run because its task was purged since the scan read it
	// (its claim found no task: store.ClaimResult.Gone).
	gone bool
	// retired: not run because its task was retired since the scan (the
	// backfill) read it (its claim refused: store.ClaimResult.Retired)
	retired bool
	// paused: not run because its task was paused since the scan read it
	// (its claim refused: store.ClaimResult.Paused)
	paused bool
	// changed: not run because its task was registered again since the
	// scan read it (its claim refused: store.ClaimResult.Changed): the
	// scan reads it again and replays the slot as registered now
	changed bool
	// left: a slot folded into a coalesced replay that did not run here
	// or did not succeed (settleFolds): counted left, not skipped, and so
	// not shown as an action (LeftForNextScan), as a left slot of any
	// other policy is not, and as a dry run drops it (leaveFoldsAfterHeld).
	left bool
	// ranMeanwhile: not run because the slot succeeded since the scan
	// read it (another scan's replay, a fire): said once per task.
	ranMeanwhile bool
	// failedMeanwhile: not run because another run of the slot failed
	// since the scan read it: the slot stays failed, not settled (the
	// watermark stays below it, for scan --retry-failed).
	failedMeanwhile bool
	// notedMeanwhile: not run because the slot's fire ran and was noted
	// on this host since the scan read the notes: not settled until the
	// next scan records the note (it may say the slot failed).
	notedMeanwhile bool
	// lineRuns: the runs a crontab line's catchup run reported as its own
	// (CATCHUP_REPLAY_FD), 0 for none; nil when it reported nothing (it
	// did not get that far, or is an older catchup): readBack then goes
	// by host and id.
	lineRuns []int64
	// lineSkip: a crontab line's run recorded a skip of its own (a lock
	// skip, whatever the line's exit status): its claim was not refused
	// for a registration since (that records nothing).
	lineSkip bool
}

// LeftForNextScan reports whether the slot was left for the next scan
// after it was planned: a slot folded into a coalesced replay that did
// not run here (the --budget spent, scan stopped, its slot taken) or did
// not succeed. It is counted in TaskScan.Left, and a report lists no
// action for it, as for the other slots left.
func (a SlotAction) LeftForNextScan() bool { return a.left }
