// Package store is catchup's ledger: the tasks it knows and every run it made.
//
// The ledger sits behind the Store interface so that the domain never sees a
// driver. This package holds the contract (the interface, its types and
// errors) and Location, where a ledger is. The backends are its
// sub-packages: store/sqlite (the default, one file, no set-up) and
// store/postgres (one ledger shared by a fleet of hosts); store/ledger opens
// the one a Location names. All times cross the interface as time.Time in
// UTC; a zero time means "none".
package store

import (
	"context"
	"time"
)

// OpenWarner is a ledger that found, as it opened, something its user
// must hear of though the ledger is usable (a SQLite ledger whose -wal was
// deleted while nobody had it open). OpenWarning returns it, or "".
type OpenWarner interface{ OpenWarning() string }

// OpenWarning is st's OpenWarning, or "" for a ledger without any.
func OpenWarning(st Store) string {
	if w, ok := st.(OpenWarner); ok {
		return w.OpenWarning()
	}
	return ""
}

// LossMarker is a ledger that lost records a replay would run again (a
// SQLite ledger whose -wal was deleted while nobody had it open, until its
// mark is removed). LostRecords says so with the fix, or returns "".
type LossMarker interface{ LostRecords() string }

// LostRecords is st's LostRecords, or "" for a ledger without any.
func LostRecords(st Store) string {
	if l, ok := st.(LossMarker); ok {
		return l.LostRecords()
	}
	return ""
}

// LostSpan is the window a ledger's lost records were written in (the
// SQLite -wal lost at rest: its mark's times) and the mark whose removal
// acknowledges it. Since or Until is zero when the mark does not say.
type LostSpan struct {
	Since, Until time.Time
	Mark         string
}

// Holds is whether a slot due at t falls in the window: its fire's record
// may have been among those lost. A window whose ends are unknown holds
// every slot.
func (l LostSpan) Holds(t time.Time) bool {
	return (l.Since.IsZero() || !t.Before(l.Since)) && (l.Until.IsZero() || !t.After(l.Until))
}

// Written is how messages name the window: "written from T1 to T2", or
// "since its last checkpoint" when the mark does not say.
func (l LostSpan) Written() string {
	if l.Since.IsZero() || l.Until.IsZero() {
		return "since its last checkpoint"
	}
	return "written from " + l.Since.UTC().Format(time.RFC3339) + " to " + l.Until.UTC().Format(time.RFC3339)
}

// LossSpanner is a LossMarker that can say its window.
type LossSpanner interface {
	LostWindow() (LostSpan, bool)
}

// LostWindow is st's LostWindow: the window of the records it lost while
// its mark stands; false for a ledger without any.
func LostWindow(st Store) (LostSpan, bool) {
	if l, ok := st.(LossSpanner); ok {
		return l.LostWindow()
	}
	return LostSpan{}, false
}

// ServerClock is a ledger whose server keeps a clock of its own (a
// PostgreSQL ledger, shared by hosts whose clocks may disagree with it).
// ServerNow is that clock now: its reading that came with a statement the
// ledger made anyway (the open's first, each claim's insert: no round trip
// of its own), carried forward by this process's monotonic clock; false
// while none came.
type ServerClock interface{ ServerNow() (time.Time, bool) }

// ServerNow is st's ServerNow; false for a ledger without a server clock.
func ServerNow(st Store) (time.Time, bool) {
	if c, ok := st.(ServerClock); ok {
		return c.ServerNow()
	}
	return time.Time{}, false
}

// Store is the ledger. Implementations are safe for concurrent processes on
// one ledger; a single Store value is used by one goroutine at a time.
type Store interface {
	Lifecycle
	BatchReads
	// UpsertTask inserts or updates a task. RegisteredAt never moves forward.
	// A new task gets t.SettledThrough; an existing one keeps its own,
	// except when t changes its schedule or zone: a new schedule counts from
	// when it was set, so t.SettledThrough (the domain passes now) replaces
	// it. A registration by `run` never replaces one read from a crontab.
	UpsertTask(ctx context.Context, t Task) error
	// UpsertTaskOf is UpsertTask for a task as its caller read it (of: a
	// scan's registration of its crontab line): in its transaction, a
	// task the ledger no longer holds, or holds registered after
	// of.Registered (purged since, or purged and registered again), is
	// not written, and ErrGone is returned; with of.Live, one retired
	// since is left retired as forget left it, and ErrRetired is
	// returned. A zero of.Registered checks nothing, as UpsertTask.
	UpsertTaskOf(ctx context.Context, of Of, t Task) error
	Task(ctx context.Context, name string) (Task, error)
	// Tasks returns every known task with its latest run, ordered by name.
	Tasks(ctx context.Context) ([]TaskSummary, error)

	// Claim atomically inserts req.Run as running unless the (task, slot)
	// already has a running run, or a succeeded one (unless Force; a pruned
	// succeeded run still counts, see Prune). Runs without a slot are always
	// claimed. The task row is created if missing.
	Claim(ctx context.Context, req ClaimRequest) (ClaimResult, error)
	// AddRun inserts a finished record (a skip) and returns its id. A
	// record AddRuns records once (a fire's paused record of a slot
	// recorded paused already, not given back) is left out as AddRuns
	// leaves it out, under the same serialisation: its id is 0.
	AddRun(ctx context.Context, r Run) (int64, error)
	// AddRuns inserts finished records (skips, expiries) in one transaction
	// and returns their ids, in order. An expired record of a slot that
	// already has one is not added (its id is 0): a slot is recorded
	// expired once, also by two callers at once (a scan and a prune); the
	// check and the insert are serialised per task. Nor is one of a slot a
	// run holds, running or succeeded: it was claimed after the caller read
	// it missed (a replay while forget or a schedule change computed what
	// to expire), and a slot never holds both (on PostgreSQL, a claim that
	// commits within the check's milliseconds is not seen). Likewise a
	// paused record of a slot that already has one settling it (not given
	// back by resume --replay-paused) is not added: a slot of a pause is
	// recorded paused once, also by two callers at once.
	AddRuns(ctx context.Context, runs []Run) ([]int64, error)
	// AddRunsOf is AddRuns for records of one task as its caller read it
	// (of: a scan's expiries and paused records): in its transaction, a
	// task the ledger no longer holds, or holds registered after
	// of.Registered (purged and registered again since: a new task), gets
	// none of them, and ErrGone is returned; with of.Live, one retired
	// since gets none either, and ErrRetired is returned. A zero
	// of.Registered checks nothing, as AddRuns.
	AddRunsOf(ctx context.Context, of Of, runs []Run) ([]int64, error)
	// Finish records the outcome of a run. An outcome that comes after the
	// run was marked interrupted (taken for dead) lands on it, and its
	// error keeps why: LateOutcomeNote and the interruption's error follow
	// the outcome's own. Repeated, it records the same. An end before the
	// run's start (the clock went back during the run) is recorded as the
	// start, as Interrupt does; a zero end stays zero. An outcome without
	// a reason keeps the run's, without a retry delay's mark (RetryStarts).
	Finish(ctx context.Context, id int64, o Outcome) error
	// Interrupt marks a run interrupted if it is still running; it reports
	// whether it changed anything. A run waiting out its retry delay
	// (InRetryDelay) ran nothing: its reason becomes ReasonRetryCut. When it does and the run has a slot, the
	// task's watermark, if at or after the slot, is lowered to one second
	// before it, in the same transaction: the slot is unsettled again.
	Interrupt(ctx context.Context, id int64, at time.Time, reason string) (bool, error)

	// GiveBack records outcome o on the finished runs ids (skips that
	// settled their slots, which o does not; a run recorded interrupted
	// after a schedule change moved the watermark past its slot) and lowers the watermark of
	// their task to one second before the earliest of their slots if it is
	// at or after it, in one transaction: those slots are missed again,
	// also if a scan moved the watermark past them meanwhile. Ids that name
	// no run are passed over.
	GiveBack(ctx context.Context, ids []int64, o Outcome) error

	// SetSettled advances the watermark of task to through. It never moves
	// it back, and it leaves it alone (returning nil) when a run of the task
	// whose slot lies in (watermark, through] is running or interrupted. The
	// check and the write are atomic against a concurrent Interrupt. An
	// unknown task is an error wrapping ErrNotFound.
	SetSettled(ctx context.Context, task string, through time.Time) error
	// SetSettledOf is SetSettled for a task as its caller read it (of: a
	// scan's watermark): in its transaction, a task the ledger no longer
	// holds, or holds registered after of.Registered (purged and
	// registered again since: a new task), is left alone, and ErrGone is
	// returned; with of.Live, one retired since is left alone too, and
	// ErrRetired is returned. A zero of.Registered checks nothing, as
	// SetSettled.
	SetSettledOf(ctx context.Context, task string, of Of, through time.Time) error
	// SetProgress records the progress (0-100) of running run id, and note
	// as its checkpoint unless note is empty (the previous one is kept). A
	// run that does not exist or is no longer running is an error wrapping
	// ErrNotFound; a percent outside 0-100 is an error, and records nothing.
	SetProgress(ctx context.Context, id int64, percent int, note string) error
	// LastCheckpoint returns the checkpoint of the latest (highest id)
	// interrupted run of (task, slot) that has one; ok is false when there
	// is none. A zero slot has none.
	LastCheckpoint(ctx context.Context, task string, slot time.Time) (note string, ok bool, err error)
	// StatusCounts returns, for each task that has runs, its number of runs
	// per status. It reads an index, not the runs, but every entry of it:
	// its cost grows with the length of the history.
	StatusCounts(ctx context.Context) (map[string]map[string]int64, error)
	// StatusCount returns the number of task's runs of status: one seek
	// of the (task, status) index, counting only those runs.
	StatusCount(ctx context.Context, task, status string) (int64, error)
	// ExpiredCounts returns, for each task with expired runs, their number
	// per reason code.
	ExpiredCounts(ctx context.Context) (map[string]map[string]int64, error)
	// LastFailures returns, for each task with a run that failed, timed out
	// or was interrupted (FailureStatuses), when the latest of those runs
	// ended: the greatest end, not the end of the latest by id (a run
	// interrupted late, or a failure that ended after a later slot's
	// record). A retry cut in its delay (ReasonRetryCut) ran nothing and
	// is no failure of its own: its failed attempt's end stands. Pruning a
	// failed run may lower it. It reads one index entry per task (and a
	// cut retry's row passed over), not the runs.
	LastFailures(ctx context.Context) (map[string]time.Time, error)

	// SeeBoot records that catchup saw boot b.ID of b.Host at b.LastSeen,
	// with boot time b.Time: it extends the boot's latest span when that
	// span's boot time is within BootStep of b.Time (or either is unknown),
	// else it starts a new span (the wall clock was stepped).
	SeeBoot(ctx context.Context, b Boot) error
	// Boots returns every span of host's boots, in the order they were
	// first recorded.
	Boots(ctx context.Context, host string) ([]Boot, error)
	// ResetClock takes req.Now as the right time for req.Task, in one
	// transaction: runs of a slot later than now lose their slot (note
	// appended to their error), expired records decided later than now are
	// deleted, a slot later than now stays done no more, a watermark later
	// than now moves down to req.Floor and a registration later than now to
	// the task's earliest run at or before now (else now). With req.DryRun
	// nothing is written. An unknown task is an error wrapping ErrNotFound.
	ResetClock(ctx context.Context, req ClockReset) (ClockResetResult, error)
	// Prune deletes the runs that ended before req.Before, but never a
	// running run, the latest run of a task, nor one of the newest
	// req.Keep runs of a task; a run whose end is unknown is kept. The
	// latest and the newest are counted as Tasks counts its Latest: the
	// record of a duplicate fire (skipped, exit 0) is none of them, and
	// stays only when newer than the oldest run kept. They are counted
	// again, on their own, as LatestRan counts (what ls shows once a pause
	// is over): the paused records of a pause, however many, never push
	// out the req.Keep newest runs of those; a record goes only when each
	// count it is in leaves it.
	// A slot whose succeeded run is pruned stays done: Claim still refuses
	// it (unless forced), with a holder that carries only the pruned run's
	// ID, Task, Slot and Status. A zero Before deletes nothing. With
	// req.DryRun it only counts. After a real delete a SQLite ledger gives
	// the space back to the file system (WAL checkpoint and VACUUM, which
	// holds the write lock meanwhile); if that fails, the error comes with
	// the count of runs that were deleted.
	// Prune also moves every task's watermark up to req.Before (unless a
	// dry run): the pruned slots lose the runs that settled them. A task
	// of req.Of that its transaction finds no longer as read (retired
	// since, given Live: ErrRetired; purged, or registered again: ErrGone),
	// as AddRunsOf does, it writes nothing more of (PruneResult.Refused).
	Prune(ctx context.Context, req PruneRequest) (PruneResult, error)

	Run(ctx context.Context, id int64) (Run, error)
	History(ctx context.Context, f HistoryFilter) ([]Run, error)
	// Running returns every run still marked running.
	Running(ctx context.Context) ([]Run, error)
	// SlotRuns returns the runs of task whose slot lies in [from, to], and
	// the runs without a slot that started in [from, to+grace], oldest first.
	// Tails are not loaded.
	SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]Run, error)
	// LatestSlot returns the latest slot any run of task stands for.
	LatestSlot(ctx context.Context, task string) (time.Time, error)
	// LatestListedSlot returns the latest slot of the runs of task that
	// TaskSummary.Latest picks from (no duplicate fire's record, no paused
	// record given back, no folded slot's): ls's LAST SLOT, from the same
	// records as its STATUS. Zero when there is none.
	LatestListedSlot(ctx context.Context, task string) (time.Time, error)
	// LatestRan returns task's latest run as TaskSummary.Latest picks it,
	// not counting its paused records either (fires a pause kept from
	// running): what ls shows once the pause is over. nil when there is none.
	LatestRan(ctx context.Context, task string) (*Run, error)
	// LastSucceededSlot returns the latest slot of task before before
	// whose run succeeded (a pruned one counts); zero when there is none.
	LastSucceededSlot(ctx context.Context, task string, before time.Time) (time.Time, error)
	// LastPausedSlot returns the latest slot of task before before that a
	// pause settled (recorded paused, not given back by resume
	// --replay-paused); zero when there is none.
	LastPausedSlot(ctx context.Context, task string, before time.Time) (time.Time, error)
	// PrunedSlots returns the slots of task in [from, to] whose succeeded
	// run was pruned (they stay done: see Prune), oldest first.
	PrunedSlots(ctx context.Context, task string, from, to time.Time) ([]time.Time, error)
	// ResolveZone records tz as the zone of task when its zone is empty or
	// "Local" (ledgers from before zones were always recorded), or
	// "localtime" (Debian's link to /etc/localtime, registered as a name
	// before it was read as the zone it links to); it reports
	// whether it changed anything, so that exactly one process says so.
	ResolveZone(ctx context.Context, task, tz string) (bool, error)
	// EarliestRun returns when the first recorded run of task started.
	EarliestRun(ctx context.Context, task string) (time.Time, error)

	// Shared reports whether several hosts may use this ledger at once
	// (PostgreSQL). A shared ledger needs LockTask and heartbeats; a local
	// one is covered by the per-host flock.
	Shared() bool
	// LockTask takes the ledger-wide lock of l.Task for run l.RunID, held
	// until release is called or the run stops being alive: no longer
	// running, or (with l.Lease > 0) its heartbeat older than l.Lease at
	// the time another caller asks (its l.Now). ok is false when another
	// live run holds it, or when an earlier claim of a slot not after
	// l.RunID's waits for it (running, beating within a few seconds): the
	// lock goes to a task's waiting claims oldest first. Holding it takes no connection: the ledger lets go
	// of its connections shortly after (a long job runs holding none). A
	// local ledger returns ok with a no-op release.
	LockTask(ctx context.Context, l TaskLock) (release func(), ok bool, err error)
	// Heartbeat records that running run id is alive at at. A run no longer
	// running (marked interrupted by another host) is left alone, and the
	// error wraps ErrNotRunning: its lease is lost.
	Heartbeat(ctx context.Context, id int64, at time.Time) error
	// Backup writes a consistent copy of the whole ledger (its WAL
	// included) to dest, a file that must not exist yet, created 0600 and
	// synced. A PostgreSQL ledger returns ErrNoBackup.
	Backup(ctx context.Context, dest string) error

	Close() error
}
