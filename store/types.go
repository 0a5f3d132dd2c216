package store

import "time"

// Run statuses. A run is created `running` (or directly `skipped`) and gets
// exactly one outcome.
const (
	StatusRunning     = "running"
	StatusSucceeded   = "succeeded"
	StatusFailed      = "failed"
	StatusTimeout     = "timeout"
	StatusInterrupted = "interrupted"
	StatusSkipped     = "skipped"
	StatusExpired     = "expired" // a slot scan gave up on: it is never replayed
	StatusPaused      = "paused"  // a slot of a paused task: not run, never replayed
)

// FailureStatuses are the outcomes of a run that failed: what --notify-cmd
// pages for and LastFailures reads.
var FailureStatuses = []string{StatusFailed, StatusTimeout, StatusInterrupted}

// Run triggers.
const (
	TriggerSchedule = "schedule"
	TriggerReplay   = "replay"
	TriggerManual   = "manual"
	TriggerRetry    = "retry"
	TriggerBackfill = "backfill"
)

// Task is what the ledger knows about one task. Only the registered command
// is kept: never the environment.
type Task struct {
	Name         string
	Schedule     string // cron expression; "" when the task has none
	TZ           string // IANA zone of the schedule; "" means the local zone
	Replay       string // all | latest | none
	Argv         []string
	Dir          string
	Shell        string // crontab command part, run with /bin/sh -c; "" for argv tasks
	Source       string // "run", "run:uid=N", "daemon:FILE:LINE ...", or "crontab:FILE:LINE uid=N user=NAME"
	Retries      int
	RetryDelay   time.Duration
	RegisteredAt time.Time // only ever moves back in time
	UpdatedAt    time.Time

	// Options a replay runs the task with, as the last registration gave.
	Timeout   time.Duration // 0: none
	KillAfter time.Duration // grace between the stop signal and SIGKILL; 0: none
	NoCapture bool          // output is not captured
	NotifyCmd string        // shell command run after an outcome; "" for none
	OnBusy    string        // replay | skip | wait: what a fire that finds the task running does; "" = replay

	// MaxAge is the task's catch-up window: scan replays no slot older than
	// this and records it expired instead (0: scan's default).
	MaxAge time.Duration

	// SettledThrough is the task's watermark: every slot of the task at or
	// before it is settled, as far as scan knows (zero: none). See
	// UpsertTask, SetSettled and Interrupt for how it moves.
	SettledThrough time.Time
	// PrunedThrough is the task's prune floor: the latest slot of a run
	// prune deleted (zero: none). No command lowers the watermark below it.
	// Prune sets it; UpsertTask leaves it; an import raises it to the
	// imported task's.
	PrunedThrough time.Time
	// ScheduleSince is when the task's schedule took effect: the watermark
	// the latest change of its schedule or zone set (zero: none known).
	// UpsertTask sets it at a change (to the watermark the change sets),
	// clears it when a retired task registers anew (its registration bounds
	// it then), and gives a new task t.ScheduleSince (an import's). The
	// missed-slot rule never counts a slot at or before it missed unless a
	// record names that slot: a dead run of the old schedule found after
	// the change lowers the watermark below it, and the new schedule's
	// slots from before the change never were.
	ScheduleSince time.Time

	RetiredAt   time.Time // when forget or scan retired the task (zero: active); see Lifecycle
	PausedAt    time.Time // when the task's latest pause began (zero: never paused)
	PausedUntil time.Time // when that pause ends (zero: at resume)
}

// Run is one attempt at a task.
type Run struct {
	ID         int64
	Task       string
	Slot       time.Time // zero for a run that stands for no slot
	Trigger    string
	Status     string
	Attempt    int
	ExitCode   *int
	Signal     int
	StartedAt  time.Time
	EndedAt    time.Time // zero while running
	Host       string
	PID        int
	BootID     string
	StdoutTail []byte
	StderrTail []byte
	Error      string    // catchup's own error text, or why a run was skipped
	Reason     string    // a machine-readable reason code (Reason*); "" if none
	Heartbeat  time.Time // last sign of life of a running run (shared ledgers); zero if none
	Progress   *int      // percent done (0-100) last reported; nil if never
	Checkpoint string    // the last note reported with progress; "" if none
}

// Outcome is what Finish records.
type Outcome struct {
	Status     string
	ExitCode   *int
	Signal     int
	EndedAt    time.Time
	StdoutTail []byte
	StderrTail []byte
	Error      string
	Reason     string // a reason code (Reason*) to record with it; "" keeps the run's own
}

// TaskSummary is a task with its latest run, for listings.
type TaskSummary struct {
	Task Task
	// Latest is the task's latest run: the latest record (by id) of its
	// newest slot, or one without a slot recorded after it, never a record
	// of an older slot recorded later (a backfill, a rerun, a copy catchup
	// migrate brought in: backend.NotAnOlderSlotSQL), so that a ledger and
	// its migrated copy agree; not counting the records of fires
	// that found their slot already done or running elsewhere (a duplicate
	// fire, another host's, a backfill's: skipped with exit 0, they ran
	// nothing and settle nothing, and would hide the outcome of the run
	// that had the slot), nor the paused records resume --replay-paused
	// gave back (store.ReasonReplayPaused); nil when there is none.
	Latest *Run
}

// HistoryFilter selects runs for History, newest first.
type HistoryFilter struct {
	Task   string    // "" for all tasks
	Status string    // "" for any status
	Since  time.Time // zero for any time; else only runs started at or after it
	Limit  int       // <= 0 means 20
}
