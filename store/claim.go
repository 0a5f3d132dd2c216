package store

import "time"

// ClaimRequest asks for the right to run Run.Task for Run.Slot.
type ClaimRequest struct {
	Run      Run   // the record to insert, status running
	Register *Task // when set, upserted in the same transaction
	Force    bool  // claim even when the slot already succeeded
	// RegisterIfClaimed: Register is upserted only when the claim is
	// granted, or when the ledger holds the task under another schedule
	// or zone, retired, or not at all (a duplicate fire that changes the
	// schedule or zone registers it: the new schedule counts from it),
	// decided in the claim's transaction after its holder check. A
	// scheduled fire's: a duplicate fire whose claim finds the slot taken
	// (another host's fire claimed it since this fire looked) leaves the
	// registration to the fire that runs the slot (docs/contract.md,
	// Register).
	RegisterIfClaimed bool
	// Replay: the claim is a scan's replay of a slot it found missed, or
	// a daemon's fire of the slot its timer was set for. A slot whose
	// latest record (skips aside) is expired is refused then, as one that
	// ran: it was given up since the scan read it or the timer was set
	// (forget, a schedule change, another host's scan), and
	// ClaimResult.Run is that record. Another fire (cron's) or a backfill
	// of such a slot is claimed. A replay's claim that registers nothing
	// (Register nil) refuses a task the ledger no longer holds (deleted by
	// `catchup forget --purge` since the scan read it): ClaimResult.Gone,
	// decided in the claim's transaction, where another claim without
	// Register registers the task first seen through its run.
	Replay bool
	// RefusePaused: a scan's replay refuses a slot of a pause its task's
	// row holds when the claim reads it (ClaimResult.Paused), in the
	// claim's transaction: a `catchup pause` during a scan's replays holds
	// from its start for every slot claimed after it commits. Only with
	// Replay and a Register nil.
	RefusePaused bool
	// Registered, when set, is the registration (Task.RegisteredAt) of the
	// task as the caller read it: a scan's replay, a backfill. A claim that
	// registers nothing (Register nil) then refuses, as Gone and in its
	// transaction, a task the ledger no longer holds or holds registered
	// after it (purged and registered again since by a fire: a new task,
	// whose slots are not those read), also when it is no Replay (a
	// backfill's claim then registers no task first seen through its run).
	// It refuses too, as Retired, a task retired since (`catchup forget`:
	// a scan's replay or a backfill is no fire, T1), as does a Replay's
	// claim with trigger replay given no Registered (a crontab line's run
	// told only CATCHUP_REPLAY_SLOT); a daemon's fire (Replay, another
	// trigger) is not refused so.
	Registered time.Time
	Boot       *Boot // when set, recorded as seen (SeeBoot) in the same transaction
	// Checkpoint: a granted claim also reads the slot's last checkpoint
	// (LastCheckpoint) in its transaction, into ClaimResult.Checkpoint.
	Checkpoint bool
	// Settle, when set, is an earlier run's outcome, recorded (as Finish
	// would) in the claim's transaction whatever the claim's answer: a
	// replay's outcome rides the next replay's claim, one commit instead of
	// two. If the claim fails, so does the outcome's record.
	Settle *Settlement
	// LockFrom, when set, is the run (Settle's: a failed attempt) whose
	// fleet-wide task lock (LockTask) the claimed run takes over in the
	// claim's transaction, so that no other run takes the task in between:
	// a retry follows its failed attempt. A local ledger ignores it.
	LockFrom int64
	// AskOlderRunning: the claim also reads, in its transaction, whether
	// the task has a running record of a slot before Run.Slot
	// (ClaimResult.OlderRunning): a scheduled fire that found its task's
	// lock free may follow a run that died (its catchup killed, its lease
	// run out), whose older slot it replays first. One indexed read (the
	// task's running records), no round trip of its own.
	AskOlderRunning bool
	// Updated, when set (a scan's replay), is the task's UpdatedAt as the
	// caller read it. A claim that reads the task's row (Replay or
	// Registered, registering nothing) refuses, as Changed, a task whose
	// row was written since (registered again by a fire, this host's or
	// another's: its command may differ), in its transaction, unless
	// the slot is refused first, on both backends: for its holder (a
	// running run, or unless Force a succeeded one, pruned or not), or for
	// a Replay a slot given up (ClaimResult.Run either way). Only a slot
	// nobody holds is refused as Changed.
	Updated time.Time
}

// Settlement is the outcome of run ID.
type Settlement struct {
	ID      int64
	Outcome Outcome
}

// ClaimResult tells whether the claim was granted.
type ClaimResult struct {
	Claimed bool
	// Run is the inserted run when Claimed; else the run that holds the
	// slot (a running or succeeded run of it).
	Run Run
	// Checkpoint is what LastCheckpoint gives for the slot, read when the
	// request asked for it and the claim was granted; "" if none.
	Checkpoint string
	// Touched: the slot had runs before this granted claim (another fire's
	// that failed, say); false when this is its first.
	Touched bool
	// Gone: a replay's claim that registers nothing was refused because
	// its task is not in the ledger (ClaimRequest.Replay), or not as
	// registered when read (ClaimRequest.Registered); Run is zero.
	// Nothing of the task was written: the claim's Settle still was.
	Gone bool
	// Retired: a scan's replay's or a backfill's claim that registers
	// nothing was refused because its task was retired since it was read
	// (ClaimRequest.Registered); Run is zero. As for Gone, nothing of the
	// task was written but the claim's Settle.
	Retired bool
	// Paused: a claim with RefusePaused was refused because its slot is
	// one of the task's pause (InPause); Run is zero. As for Gone, nothing
	// of the task was written but the claim's Settle.
	Paused bool
	// OlderRunning: asked for (ClaimRequest.AskOlderRunning) and granted,
	// the task has a running record of a slot before the claimed one, as
	// the claim read it: alive or dead, for the caller to judge.
	OlderRunning bool
	// Changed: a claim with Updated was refused because the task's row
	// was written since (ClaimRequest.Updated); Run is zero. As for Gone,
	// nothing of the task was written but the claim's Settle.
	Changed bool
	// Synced, when set, waits for the sync of a granted claim's commit,
	// made in the background while its job starts (SQLite), and returns
	// its error: one that failed (an I/O error) may have lost the commit,
	// and the Settle it recorded with it. nil: synced before Claim
	// returned.
	Synced func() error
}

// RegistersAnyway reports whether a claim with RegisterIfClaimed upserts
// its Register whatever the claim's answer, the ledger holding the task
// (found) under schedule and tz, retired or not: a task not registered,
// retired, or registered under another schedule or zone. SQLite decides
// by it; PostgreSQL's upsert by the same condition, in its WHERE.
func RegistersAnyway(reg Task, found bool, schedule, tz string, retired bool) bool {
	return !found || retired || schedule != reg.Schedule || tz != reg.TZ
}

// RefusesRetired reports whether claim req refuses a retired task
// (ClaimResult.Retired): a claim that registers nothing and is a scan's
// replay or a backfill. Both backends decide by it.
func RefusesRetired(req ClaimRequest) bool {
	return req.Register == nil && (!req.Registered.IsZero() || req.Replay && req.Run.Trigger == TriggerReplay)
}

// InPause reports whether slot is a slot of the pause from pausedAt
// (zero: none) until until (zero: until resumed): a slot at or after
// its start and before its end.
func InPause(pausedAt, until, slot time.Time) bool {
	return !pausedAt.IsZero() && !slot.Before(pausedAt) && (until.IsZero() || slot.Before(until))
}

// HoldsSlot reports whether run r, a record of a slot, holds that slot
// against a claim: a running run holds it, and unless the claim is forced
// a succeeded one does too, whatever other records the slot has (a later
// failed run of it, another host's, does not make it claimable). Both
// backends' Claim decide by this rule in SQL (a succeeded run since pruned
// still holds its slot: PrunedSlots); the readers that say what a scan
// would do with a slot decide by this function, so that they agree with
// the claim.
func HoldsSlot(r Run, force bool) bool {
	return r.Status == StatusRunning || (!force && r.Status == StatusSucceeded)
}

// TaskLock asks for a task's fleet-wide lock on behalf of a claimed run.
type TaskLock struct {
	Task  string
	RunID int64         // the claimed, running run that will hold it
	Now   time.Time     // the caller's clock, to judge the holder's heartbeat
	Lease time.Duration // a holder whose heartbeat is older is dead; 0: alive while running
	// TookFrom, when not nil, is set to the run the lock was taken from
	// because it was dead by the lease (still recorded running, or not),
	// else 0: its taker marks it interrupted, as a scan would.
	TookFrom *int64
}
