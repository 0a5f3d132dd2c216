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
)

// LateOutcomeNote joins an outcome's own error to the error of the
// interruption it came after (see Store.Finish): the record keeps that its
// run was taken for dead, and its slot perhaps replayed meanwhile.
const LateOutcomeNote = "taken for dead before its outcome came: "
