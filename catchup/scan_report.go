package catchup

// The words of a scan: its request, the report it returns, and the replay
// policies.

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/store"
)

// ScanRequest is one checked `catchup scan`: cmd checks its flags, and
// nothing below checks them again.
type ScanRequest struct {
	Tasks      []string        // only these tasks; empty = every task with a schedule
	Crontabs   []CrontabSource // crontab files to discover catchup lines in
	Replay     string          // a policy (see CheckPolicy) that overrides each task's; "" keeps theirs
	MaxReplays int             // per task; at least 1
	DryRun     bool
	MissedRule        // MaxAge, Tolerance, RetryFailed
	NotifyCmd  string // run when a task has missed slots (else the task's own --notify-cmd)
	Parallel          // --concurrency, --jitter, --budget and the progress bar (scan_parallel.go)

	// Commands replays a task by this command instead of its stored argv:
	// the daemon's own lines, whose stored command may be redacted
	// (StoredRedacted). Never written to the ledger.
	Commands map[string][]string
	// NotifyCmds is the --notify-cmd a task's replays and alert run instead
	// of its stored one, which may be masked (storedNotify): the daemon's
	// own lines, as written. Never written to the ledger.
	NotifyCmds map[string]string
	// Replays, if set, is told of each replay as it starts and as it
	// ends (not a dry run's): the daemon logs them as it logs its fires.
	Replays ReplayHooks
	// AlertNews, if set, is asked before a task's missed-slot alert runs:
	// false skips it. The daemon's rescans (every minute) alert a task
	// whose scan recorded nothing (its slots left missed, by --replay
	// none or a lock held) only when its missed slots changed since it
	// last alerted them (news). It must say true for a scan that
	// recorded an expiry: that alert is owed until it has run.
	AlertNews func(TaskScan) bool

	gate  *ReplayGate   // built by Scan from Parallel
	notes *pendingNotes // a dry run's, or those a scan could not record: counted as the next scan records them (spool_read.go)
}

// ReplayHooks are told of a scan's replays, one task's one after another.
type ReplayHooks struct {
	// Planned: the task's slots to replay are known (the ledger read for
	// them), before any replay or alert of the task runs.
	Planned func(task string)
	Start   func(task string, slot time.Time) // a replay of slot begins (its job may start, or not)
	End     func(task string, a SlotAction)   // it ended: a.Status is its run's recorded status
	// Turn, if set, is asked before each replay of a task after its first:
	// the daemon gives its place under --concurrency back and waits for it
	// again there. false (stopped while waiting) leaves the rest missed.
	Turn func(ctx context.Context, task string) bool
}

// Parallel is how a scan paces its replays: cmd checks it, Scan builds a
// ReplayGate from it.
type Parallel struct {
	Concurrency int           // replays of different tasks at once; at least 1
	Jitter      time.Duration // the most the first replay waits (this host's share: HostJitter)
	Budget      time.Duration // start no replay after this (0: no limit); the rest stays missed
	Progress    func(ReplayProgress)
}

// CrontabSource is one crontab to read.
type CrontabSource struct {
	Name   string    // as the user gave it, for messages
	Path   string    // absolute, stored with its tasks so that later scans re-read it ("" for stdin)
	R      io.Reader // stdin's crontab; nil for a file, which scan reads itself through cron's checks (OpenCrontab)
	System bool      // has a user field (/etc/crontab, /etc/cron.d)
}

// Slot actions in a scan report.
const (
	ActionReplayed    = "replayed"
	ActionFailed      = "failed"
	ActionInterrupted = "interrupted" // cut short by the scan's stop: the next scan replays it
	ActionSkipped     = "skipped"
	ActionExpired     = "expired" // recorded expired: never replayed
	ActionPlanned     = "would replay"
	ActionDropped     = "would skip" // coalesced into the replay of a later slot, or its task's lock is held (planDry)
	ActionWouldExpire = "would expire"
	ActionWouldFail   = "would fail" // its replay would not start: a refusal (planDry)
)

// TaskScan is one task's part of a scan.
type TaskScan struct {
	Task   string
	Policy string
	Missed []time.Time
	Causes []string // why each slot of Missed was missed, in step with it
	// Actions is what scan did (or would do) with each missed slot it did
	// not expire; SlotActions yields all of them, the expiries first.
	Actions     []SlotAction
	expiries    expiredLog // the slots scan recorded expired (or would, or found so meanwhile): SlotActions
	Replayed    int
	Failed      int
	Skipped     int
	Interrupted int       // replays cut short when the scan was stopped (recorded interrupted: replayed next time)
	Expired     int       // slots recorded expired (in a dry run: that would be)
	Left        int       // slots not replayed, left missed for the next scan: the --budget was spent, scan was stopped, the task was running, or Refused
	Paused      int       // slots of the task's pause, recorded paused (in a dry run: that would be)
	Stuck       int       // slots no scan can replay (the ledger keeps the task's command redacted): the scan fails
	Refused     int       // of Left, those no replay of which could start (refusedToStart: its working directory): the scan fails
	ClockAhead  time.Time // the ledger holds this time of the task, later than now: not scanned
	AheadSaid   string    // ClockAhead's warning (one of Warnings): the daemon says it once per task and time
	// StaysMissed is the missed slots in the catch-up window that replay
	// policy "none" leaves missed (none of Actions); zero: none.
	StaysMissed StaysMissed
	Warnings    []string
	// Held is the slot a run still running held, after which the task's
	// replays waited, and its warning (one of Warnings); zero: none. The
	// daemon says it once per slot and holder, not at every rescan.
	Held HeldSlot
	// Busy is the slot whose replay found the task's lock held (a run by
	// hand, another scan), after which the task's replays waited, and its
	// warning (one of Warnings; RunID 0); zero: none. The daemon says it
	// once per slot, not at each scan while the lock stays held.
	Busy HeldSlot
	// StartRefused is why no replay of the task could start
	// (refusedToStart: its working directory) and its warning (one of
	// Warnings); zero: none. The daemon says it once while it stays, not
	// at every rescan.
	StartRefused StartRefusal
	// owed are the alerts of the expiries this scan recorded, each kept
	// until the alert has run (oweAlert): the window's and the policy's,
	// then a coalesced line's gap given up with its slot (giveUpFolds);
	// none: nil. alertCmd is the command they name ("" none), alertAt
	// the task as it runs (givenAlertAt: its directory kept with them).
	owed     []*owedAlertFile
	alertCmd string
	alertAt  store.Task
	// gaveBackFrom is the earliest slot of the standing folds this scan
	// gave back (a killed coalesced replay's, whose slot failed again):
	// missed again, though the scan read them settled, so its watermark
	// stays below them (advanceWatermark); zero: none.
	gaveBackFrom time.Time
}

// StartRefusal is a task's refusal to start (refusedToStart): Why, the
// refusal itself, and Warning, what the scan said of it.
type StartRefusal struct {
	Why     string
	Warning string
}

// HeldSlot is a slot held by a run still running (RunID: 0 when unknown).
type HeldSlot struct {
	Slot    time.Time
	RunID   int64
	Warning string
}

// ScanReport is the result of a scan.
type ScanReport struct {
	Tasks    []TaskScan
	Warnings []string // refused crontabs, crontab errors, unknown users, clock rollbacks
	// RefusedCrontabs counts the crontabs refused by cron's rules (none of
	// their lines ran).
	RefusedCrontabs int
	// RefusedLines counts the catchup lines of crontabs that scan refused
	// (malformed, or ErrLineRefused: a bad zone, schedule or flag value,
	// whom they run as, the ledger they record into): none of them ran.
	RefusedLines int
	// RefusedNotes counts the users whose notes of unrecorded fires a root
	// scan refused, and whose lines it therefore did not replay (exit 1).
	RefusedNotes int
	// CronBackups counts the files beside a crontab scan read that cron
	// runs too and that run its catchup commands without catchup
	// (CrontabBackups): those commands run twice, once without catchup.
	CronBackups int
	// MissingCrontabs counts the tasks not scanned because their crontab
	// and its directory are missing (not mounted yet?): not retired either
	// (exit 1).
	MissingCrontabs int
	// Stopped: a signal ended the scan before it was done; NotScanned
	// tasks were not looked at (their slots stay missed for the next scan).
	Stopped    bool
	NotScanned int
	// NotesKept: why this host's notes of unrecorded fires could not be
	// recorded (nil: they were, or there were none). They are kept for the
	// next scan, and counted meanwhile as it will record them.
	NotesKept error
	// BootRecorded: the scan wrote this boot's sighting to the ledger, so
	// the ledger records (the daemon ends a ledger outage on it, unless
	// the scan kept this host's notes: NotesKept).
	BootRecorded bool
}

// Failed reports whether any replay failed, a crontab or a line of one
// was refused, cron runs a copy of a crontab too, or a task was not
// scanned because the ledger holds a time of it later than now (its
// missed slots are not even counted: ls --missed exits 1 for it too) or
// because its crontab and the crontab's directory are missing.
func (r ScanReport) Failed() bool {
	if r.RefusedCrontabs > 0 || r.RefusedLines > 0 || r.RefusedNotes > 0 || r.CronBackups > 0 || r.MissingCrontabs > 0 {
		return true
	}
	for _, t := range r.Tasks {
		if t.Failed > 0 || t.Stuck > 0 || t.Refused > 0 || !t.ClockAhead.IsZero() {
			return true
		}
	}
	return false
}

// CheckPolicy refuses a replay policy other than all, latest, coalesce and none.
func CheckPolicy(policy string) error {
	switch policy {
	case "all", "latest", "coalesce", "none":
		return nil
	}
	return fmt.Errorf("invalid --replay %s: use all, latest, coalesce or none", taskname.Quoted(redact.Value(policy)))
}
