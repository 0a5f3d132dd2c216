package store

// Reason codes stored with a run (Run.Reason) that scan and metrics read:
// why a slot was given up (status expired), or why a fire did not reach the
// ledger in time (recorded afterwards).
const (
	ReasonMaxAge     = "max-age"     // older than the task's catch-up window
	ReasonMaxReplays = "max-replays" // beyond scan's --max-replays
	ReasonPolicy     = "policy"      // dropped by the replay policy (latest)
	// ReasonScheduleChanged: a slot owed to a schedule or zone the task no
	// longer has (its run found dead after the change, or its paused
	// record given back): no scan replays it.
	ReasonScheduleChanged = "schedule-changed"
	// ReasonRetired: a slot missed before its task's crontab line was
	// removed (scan or the daemon retired the task): nothing replays it.
	ReasonRetired     = "retired"
	ReasonUnreachable = "ledger-unreachable" // the fire could not reach the ledger
	// ReasonLedgerLocked: the fire's claim (or its task lock) reached the
	// shared ledger, but gave up waiting for the task's row, which another
	// session held past the lock timeout (store.ErrLedgerLocked).
	ReasonLedgerLocked = "ledger-locked"
	// ReasonLockFile: the fire could not take this host's lock for its task
	// (its lock file not to be opened, its lock directory not to be made
	// or trusted), so it was recorded late from its note, as one that
	// could not reach the ledger is: the ledger was fine.
	ReasonLockFile = "lock-file"
	// ReasonByHand marks a run made with run --manual: it stands for no slot,
	// not even the one it started just after (a slotless fire of a line
	// without a known schedule does).
	ReasonByHand = "by-hand"
	// ReasonReplayPaused marks a paused run that resume --replay-paused gave
	// back: it no longer settles its slot, which is missed again, with the
	// cause paused (the run stays in the history, status paused).
	ReasonReplayPaused = "replay-paused"
	// ReasonRetryCut marks a retry recorded interrupted during its delay,
	// before its command started: it ran nothing, so the slot keeps the
	// failed attempt's outcome, for every reader (the task's status, a
	// missed slot's cause).
	ReasonRetryCut = "retry-cut"
	// ReasonRetryDelay marks a running retry claimed as its delay begins,
	// waiting it out: its command has not started. SetStarted and Finish
	// clear it; a run found dead with it (Interrupt: a power cut, catchup
	// killed, a lease run out during the delay) ran nothing and is
	// recorded ReasonRetryCut, as a retry a signal cut in its delay.
	ReasonRetryDelay = "retry-delay"
	// ReasonByHandRetryDelay is ReasonRetryDelay for the retry of a run by
	// hand (ReasonByHand), which SetStarted and Finish give back.
	ReasonByHandRetryDelay = "by-hand-retry-delay"
)

// WaitingRetry returns the reason of a retry claimed as its delay begins
// whose own is own (RetryStarts undoes it), and whether it can be marked.
func WaitingRetry(own string) (string, bool) {
	switch own {
	case "":
		return ReasonRetryDelay, true
	case ReasonByHand:
		return ReasonByHandRetryDelay, true
	}
	return own, false
}

// RetryStarts is the reason of a retry whose command starts: its own,
// without WaitingRetry's mark.
func RetryStarts(reason string) string {
	switch reason {
	case ReasonRetryDelay:
		return ""
	case ReasonByHandRetryDelay:
		return ReasonByHand
	}
	return reason
}

// InRetryDelay reports whether a running run's reason says it waits out
// its retry delay (WaitingRetry).
func InRetryDelay(reason string) bool {
	return reason == ReasonRetryDelay || reason == ReasonByHandRetryDelay
}

// LateOutcomeNote joins an outcome's own error to the error of the
// interruption it came after (see Store.Finish): the record keeps that its
// run was taken for dead, and its slot perhaps replayed meanwhile.
const LateOutcomeNote = "taken for dead before its outcome came: "
