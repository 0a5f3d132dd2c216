package catchup

import (
	"context"
	"os"
	"time"

	"github.com/catchup/catchup/catchup/notify"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/runner"
	"github.com/catchup/catchup/store"
)

// Exit statuses of `catchup run` of its own (the runner gives 124 for a
// timeout, 126 and 127 for a command that cannot start).
const (
	ExitInternal = 125 // catchup failed before starting the command
	exitLocked   = 75  // the command did not run, and scan will replay its slot (EX_TEMPFAIL)
)

const (
	tailSize      = 64 << 10 // bytes of each output stream kept in the ledger
	maxRetryDelay = time.Hour
)

// Skip reasons recorded on skipped runs. A lock skip leaves its slot
// missed (scan replays it); a policy skip settles its slot for good.
const (
	reasonLocked     = "another run of the task held the lock"
	reasonPolicy     = "dropped by replay policy %q"
	reasonMaxReplays = "beyond --max-replays %d"
	reasonCoalesced  = "coalesced into the replay of slot %s"
	reasonMaxAge     = "older than the catch-up window (%s)"
	// reasonScheduleChanged: missed.offSchedule.
	reasonScheduleChanged = "no slot of the task's schedule since it changed (now %q in %s): no scan replays it"
	// reasonStoppedWaiting: the lock skip (exit 75) of a fire told to stop
	// while it waited for the lock (stoppedWaiting).
	reasonStoppedWaiting = reasonLocked + "; stopped while waiting for it"
)

// RunRequest is one checked `catchup run`: cmd builds it from the flags and
// the environment, and nothing below checks it again.
type RunRequest struct {
	Task       string             // a valid task name
	Schedule   *schedule.Schedule // --cron in its zone, registered with the fire; nil without --cron
	TZ         string             // the zone's name as given ("" = local), registered with Schedule
	Replay     string             // all | latest | coalesce | none, registered with Schedule
	MaxAge     time.Duration      // the task's catch-up window, registered with Schedule (0: scan's default)
	Tolerance  time.Duration
	Timeout    time.Duration
	KillAfter  time.Duration
	Slot       time.Time // --slot: an explicit slot, trigger manual
	ReplaySlot time.Time // CATCHUP_REPLAY_SLOT: set by scan, trigger replay
	// FireSlot: the slot a scheduled fire stands for when its caller knows
	// it (the daemon: the slot its timer was set for), however late the
	// fire starts; trigger schedule. Zero: resolved from the clock.
	FireSlot  time.Time
	Force     bool
	Wait      bool          // --wait: wait for the lock (this fire's on-busy is wait)
	Manual    bool          // --manual: a run by hand, no slot
	WaitLimit time.Duration // --wait DUR: give up after DUR (0: no limit)
	// Started is when the fire started (real time): --wait DUR counts from
	// it, so that what the fire spent before its wait (opening the ledger,
	// a busy one, a shared one's connection) is part of DUR. Zero: when Run
	// is called.
	Started  time.Time
	OnBusy   string // replay | skip | wait; "" = as registered, else replay
	Backfill bool   // ReplaySlot is backfill's: trigger backfill
	AfterRun int64  // backfill, or a replay with ReadRuns: a run of the slot with a greater id (made since) means it is done
	// ClaimSaid: a crontab line's run of a backfill's slot, the runs
	// holding a slot that the backfill's earlier tries named already
	// (claimed by HOST), not named again (CATCHUP_BACKFILL_SAID).
	ClaimSaid []int64
	// ReadRuns: scan's replay, and AfterRun is the newest run id the scan
	// read of the task (0: none): another scan's run of the slot since then,
	// a failed one too, settles it (CATCHUP_REPLAY_AFTER for a crontab line).
	ReadRuns bool
	// SaysMeanwhile: scan's own replay (not a crontab line's run): a slot
	// that another scan or a fire ran since the scan read it is said once
	// per task by the scan, not once per slot here.
	SaysMeanwhile bool
	// Registered: a scan's replay's or a backfill's, the task's
	// registration as read (its RegisteredAt): the claim refuses the task
	// purged since, or purged and registered again (store.ClaimRequest.Registered).
	Registered time.Time
	// Updated: a scan's replay's, the task's UpdatedAt as read: the claim
	// refuses the task registered again since (store.ClaimRequest.Updated).
	Updated  time.Time
	PrevSlot time.Time // scan's coalesced replay: the last settled slot before the gap
	// Fold: scan's coalesced replay, the gap's other slots, recorded
	// skipped (FoldReason) once the claim is granted and before the command
	// starts: a replay whose slot another run took covers none of them.
	Fold       []time.Time
	FoldReason string
	Coalesced  int // scan's coalesced replay: how many slots it stands for
	// DirFromLedger: Dir is the task's registered working directory (a
	// replay, a backfill, a daemon fire: its line's home), checked before
	// the command starts there (trustedWorkDir). A daemon fire is checked
	// first before its claim (RefusedWorkDir: refused, nothing is
	// recorded); this check covers a change in between.
	// DirSeen: Dir as the caller's check saw it, trusted, moments before
	// (checkedWorkDir); the start checks it in full only when it is no
	// longer that one (stillSeen). nil: in full.
	DirFromLedger bool
	DirSeen       os.FileInfo
	// ZoneFromHost: TZ is the host's zone, not --tz or CRON_TZ. A crontab
	// line's fire then reads its schedule in the zone scan registered for
	// the line: cron's zone, which a crontab TZ= line does not set.
	ZoneFromHost bool
	// ZoneNotTZ: the zone of TZ, when cron reads the line in another
	// (ZoneFromHost); its first fire says which zone it registers.
	ZoneNotTZ  string
	Strict     bool
	NoCapture  bool
	Retries    int
	RetryDelay time.Duration
	Argv       []string // the command; never empty
	Dir        string   // working directory recorded for replays
	Shared     bool     // the ledger is shared by several hosts (PostgreSQL)
	FailOpen   bool     // shared ledger unreachable: run anyway
	Ping       string   // healthchecks-style ping URL
	NotifyCmd  string   // sh -c command run when a run fails, times out or is interrupted
	// DaemonLine: the daemon's fire's line, as it registers it (daemonLineDiffers).
	DaemonLine *DaemonLine
}

// Run is the whole lifecycle of one fire: resolve the slot, lock, claim,
// execute, record, retry. st may be nil when the ledger could not be opened
// (openErr says why): the command then still runs unless req.Strict.
// Its ledger calls are one session (store.Session): a ledger reopened
// under it (the daemon's, replaced) refuses the rest of them.
func Run(ctx context.Context, st store.Store, openErr error, m Machine, req RunRequest) (RunResult, error) {
	ctx = store.WithSession(ctx)
	if !req.ReplaySlot.IsZero() {
		// A replay stands for a slot of the task as registered (by the
		// crontab line or an earlier fire): never re-register from the
		// replayed line's flags, and take the zone and the previous slot
		// from the registered schedule.
		req.Schedule, req.TZ = nil, ""
	}
	if req.Started.IsZero() {
		req.Started = time.Now() // real time: it bounds a real wait (waitLeft)
	}
	l := &lifecycle{st: st, m: m, req: req, sched: req.Schedule}
	if req.Backfill {
		// A crontab line's run of a backfill's slot: it says that it waits
		// for the lock (sayWaiting), once, as backfill says it of the
		// tasks it runs itself (its flag is this process's: its slot's).
		l.waitSaid = new(bool)
		l.claimSaid = map[int64]bool{}
		for _, id := range req.ClaimSaid {
			l.claimSaid[id] = true
		}
	}
	defer func() {
		if l.leftAlert != nil {
			l.leftAlert() // the fire is over, its lock released
		}
	}()
	ledgerErr := openErr
	if st != nil {
		ledgerErr = l.loadRegistered(ctx)
	}
	if ledgerErr == nil && st != nil {
		if err := l.daemonOwned(); err != nil {
			return RunResult{ExitCode: ExitInternal}, err
		}
		l.relearnLine(ctx)
		l.daemonLineDiffers(ctx)
		if l.refused != nil {
			return RunResult{ExitCode: ExitInternal}, l.refused
		}
		if l.notASlot {
			return RunResult{Skipped: true}, nil // said (daemonLineDiffers)
		}
	}
	if err := l.checkSlot(); err != nil {
		return RunResult{ExitCode: ExitInternal}, err
	}
	if t := l.revive; t != nil && !req.FireSlot.IsZero() && t.RetiredAt.After(req.FireSlot) {
		// The daemon's fire of a task retired after its slot came (its
		// line removed by a reload while the fire waited to start): the
		// removal wins, and the fire neither runs nor registers it anew.
		l.m.notice("task %s was retired at %s, after its slot %s came: not run", req.Task,
			rfc(t.RetiredAt), formatSlot(req.FireSlot, l.sched))
		return RunResult{Skipped: true}, nil
	}
	if st == nil || ledgerErr != nil {
		return l.unrecorded(ctx, ledgerErr)
	}
	return l.run(ctx)
}

// PrepareRun starts, in the background, the set-up of this process that
// the first job it starts needs (runner.Prepare): `catchup run` calls it
// before opening its ledger, so that the two overlap.
func PrepareRun() { runner.Prepare() }

// lifecycle carries one fire through its steps.
type lifecycle struct {
	refused    error // this fire is another line's, which scan refuses (relearnLine): nothing runs
	notASlot   bool  // the daemon's fire is of no slot of the registration (daemonLineDiffers): nothing runs
	st         store.Store
	m          Machine
	req        RunRequest
	sched      *schedule.Schedule // the request's, else the registered one
	registered *store.Task
	superseded bool        // registered anew while this fire waited for the lock (rereadAfterWait)
	waitedPast bool        // registered meanwhile, not superseded (rereadAfterWait): a change this fire makes counts from now
	firedAt    time.Time   // when the fire resolved its slot (resolveFire): whether it is the slot's own is read then (fireTime)
	revive     *store.Task // the registration of a retired task, which this fire registers anew
	kept       string      // what this duplicate fire differs in from the registration it leaves (duplicateKeeps), for its line
	// unread: the ledger could not be read (unrecorded), so this fire cannot
	// tell its schedule's first fire from a later one (resolveFire).
	unread bool
	// fleetWaited: lockFleet took the ledger lock after waiting for
	// another host's run (claimedDeadFirst).
	fleetWaited bool
	rowLocked   bool // lockFleet gave up: another session held the task's row past the lock timeout
	// tookDead: runs of other hosts that lockFleet took the ledger lock
	// from, dead by the lease, and marked interrupted (takeDeadHolder):
	// deadBefore counts them as the dead runs they were.
	tookDead []store.Run
	// fleetZone: on a shared ledger, this fire (its zone the host's, not
	// --tz or CRON_TZ) reads the task in the zone it is registered in, not
	// in this host's (fleetZoneOf).
	fleetZone  bool
	pinger     *notify.Pinger
	checkpoint string         // the note of an interrupted run of the slot, for a replay
	held       *heldOutcome   // scan's replays of a task: the outcome the next claim records; else nil
	owedRun    *owedAlertFile // the failure alert kept owed while its outcome is recorded (oweRunAlert)
	alertAs    notify.As      // whom its alert runs as: this process's user, but another user's owed one (usersOwedAlerts)
	// leftAlert, when this fire changed its task's schedule, is the
	// missed-slot alert for the slots it left behind (rescheduled): run
	// when the fire is over, its lock released, never before the job.
	leftAlert func()
	// waitSaid: a backfill's, shared by its slots of one task, which say
	// once for the task that they wait for its lock (sayWaiting); true once
	// said (a crontab line's run of a backfill's slot: its own). nil: a
	// fire, which waits without a word.
	waitSaid *bool
	// claimSaid: a backfill's, shared by its tries of one task's slots,
	// holds the runs whose claim of a slot it named (claimed by HOST):
	// each said once, however often it tries the slot again. nil: said
	// every time.
	claimSaid map[int64]bool
}

// waitLeft is what is left of --wait DUR, counted from the fire's start
// (req.Started), which this fire's waits (for its lock here, then for its
// run on another host) share with what it did before: 0 for no limit, and
// never below a nanosecond once spent (so it still means "a limit": the
// lock is tried once more). Real time, not Machine.Now: it bounds a real
// wait, as a timer does; no slot or record depends on it.
func (l *lifecycle) waitLeft() time.Duration {
	if l.req.WaitLimit <= 0 {
		return 0
	}
	return max(time.Until(l.req.Started.Add(l.req.WaitLimit)), time.Nanosecond)
}

func exitCodePtr(code int) *int { return &code }

// earliest returns the earlier of two times, ignoring a zero one.
func earliest(a, b time.Time) time.Time {
	if b.IsZero() || a.Before(b) {
		return a
	}
	return b
}
