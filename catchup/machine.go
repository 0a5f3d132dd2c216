// Package catchup is the domain: the run lifecycle (lock, claim, execute,
// record), the missed-slot rule and scan, and the ledger chores (prune,
// migrate). Its leaf algorithms are packages of their own: schedule (cron
// expressions, slots, DST), crontab (reading crontabs), notify (pings and
// alert commands) and taskname (the name grammar).
//
// Nothing here reads the wall clock, the host's identity or the process
// environment directly: they arrive in a Machine, so that tests and
// CATCHUP_NOW can move time, and so that nothing here renders output.
package catchup

import (
	"io"
	"os"
	"time"

	"github.com/catchup/catchup/runner"
)

// StartGate orders the starts of jobs with a stop that is no signal to
// this process: closed, no job starts (Machine.Starts, runner.Gate).
type StartGate = runner.Gate

// Machine is everything catchup needs to know about the host and process it
// runs in. cmd fills it in once per command.
type Machine struct {
	Now      func() time.Time // the clock; never time.Now() deep inside
	Host     string           // recorded on every run
	BootID   string           // this boot's id (/proc/sys/kernel/random/boot_id)
	BootTime time.Time        // when this boot started; zero if unknown
	PID      int              // catchup's own pid, recorded on its runs
	UID      int              // effective uid of catchup
	LockDir  string           // private directory holding one lock file per task
	NoteDir  string           // where a fire's note goes when LockDir cannot take it (a tmpfs); "" for nowhere
	DB       string           // the ledger location; jobs get it without its password, as CATCHUP_DB
	DBFile   string           // the CATCHUP_DB_FILE that DB was read from, if it was
	Where    string           // the ledger location without credentials, for messages
	Lease    time.Duration    // shared ledger: a running run without a heartbeat for this long is dead
	Zone     string           // the host's zone name (TZ, else what /etc/localtime links to): never "" nor "Local"
	// ClockPinned: Now is not this host's clock but a time given
	// (CATCHUP_NOW, the daemon's test minute): comparing it with another
	// clock (ClockWatch) means nothing, and reading it would start it.
	ClockPinned bool
	// CronZone names the zone cron reads a crontab line without CRON_TZ
	// in: /etc/localtime's, whatever this process's TZ says (nil: Zone).
	CronZone func() string
	Environ  []string // the environment jobs inherit
	Stdin    *os.File
	Stdout   io.Writer
	Stderr   io.Writer
	// Notice prints one line about catchup's own bookkeeping (never the
	// job's output); cmd prefixes it with "catchup: ".
	Notice func(format string, args ...any)
	// HomeDir returns a user's home directory ("" = the current user).
	HomeDir func(user string) (string, error)
	// asUser remembers, for one scan or backfill (set at its start), what
	// other users can reach (accessAs): nil checks every time.
	asUser *accessMemo
	// NotesOf finds where a fire of user uid, run with environment env
	// (cron's, as scan gives that user's crontab line) and recording into
	// ledger db, keeps its notes of unrecorded fires: its lock directory
	// and its spare note directory ("" for none). nil: root's scan does
	// not look for other users' notes.
	NotesOf func(db string, uid int, env []string) (lockDir, noteDir string, err error)
	// LockDirHint, when set, names the cause of an error creating LockDir
	// (ErrCreateLockDir) that the user can fix, and the fix (cmd: a HOME
	// of /); it returns err as it is otherwise.
	LockDirHint func(err error) error
	// JobSignals are the signals forwarded to a running job (nil: the
	// runner's default); the daemon forwards them itself and passes none.
	JobSignals []os.Signal
	// AlertSignals are the signals forwarded to a running alert command
	// (nil: the runner's default); the daemon's SIGHUP is a reload, which
	// must not kill an alert, so it passes its stop signals only.
	AlertSignals []os.Signal
	// Stop, if set, ends the command's context as a stop signal to
	// catchup does: the runner calls it with each signal it forwards to a
	// job, before the job can die of it, so that a scan starts no next
	// replay (which the signal never reaches) while the command's own
	// handler has yet to run.
	Stop func(os.Signal)
	// OnJobStart, if set, is told each job's pid (its process group) as it
	// starts: the daemon kills what outlives its grace.
	OnJobStart func(pid int)
	// OnReplayFirstStart and OnReplayFirstEnd, if set, are told of each
	// job that a scheduled fire runs before its own to replay an older
	// slot a dead run left (deadFirst, claimedDeadFirst): its slot and pid
	// as it starts, instead of OnJobStart (then the fire's own job's), and
	// its slot and result once it is over. OnReplayFirstStart nil:
	// OnJobStart is told, as of any job.
	OnReplayFirstStart func(slot time.Time, pid int)
	OnReplayFirstEnd   func(slot time.Time, res RunResult)
	// OnJobEnd, if set, is told each job's pid once it has ended, what it
	// left in its process group stopped: no longer the daemon's to signal.
	OnJobEnd func(pid int)
	// JobsDieWithIt: the jobs die with this process whatever the ledger
	// (the daemon's; a shared ledger's always do: runner.DieWithParent).
	JobsDieWithIt bool
	// Starts, if set, is closed by a stop that is no signal to this
	// process (the daemon's, before it says it stops): a job set up to
	// start then is not started (runner.Gate).
	Starts *StartGate
	// JobsKill, if set, is closed to kill the running jobs (the daemon's,
	// at its grace's end): each job's runner sends SIGKILL to its group,
	// judging first what of it outlived the job ignoring the stop
	// (runner.Config.Kill).
	JobsKill <-chan struct{}
	// BeforeJobStart, if set, is called as each job's set-up is done, just
	// before the runner looks at the stop for the last time (a test holds
	// a start there: runner.Config.BeforeStart).
	BeforeJobStart func()
	// LockWait, if set, is told as a fire starts to wait for its task's
	// lock (true) and as that wait ends (false); Answered, as each claim
	// returns, whatever its answer, or as a scan's sighting of this boot
	// succeeds: the daemon counts a fire's (a scan's) wait for its ledger
	// until then, but for its wait for the lock.
	LockWait func(waiting bool)
	Answered func()
	// LedgerWrite, if set, is called as a run's later ledger write starts
	// (of what: WriteOutcome, WriteHeartbeat), and the done it returns as
	// that write returns: the daemon watches those waits too.
	LedgerWrite func(what string) (done func())
	// BeforeHooks, if set, is called once a run's outcome is recorded and
	// its task's lock released, before its end ping and --notify-cmd, with
	// the result Run returns: the daemon gives the fire's place under
	// --concurrency back then, and lets the task's next held fire start
	// (unless the fire left its slot missed), so that a monitor that does
	// not answer holds no other job's start.
	BeforeHooks func(res RunResult)
}

func (m Machine) notice(format string, args ...any) {
	if m.Notice != nil {
		m.Notice(format, args...)
	}
}

// The later writes of a run that Machine.LedgerWrite is told of.
const (
	WriteOutcome   = "outcome"
	WriteHeartbeat = "heartbeat"
)

// ledgerWrite tells m.LedgerWrite of a write of what, and returns what to
// call as it returns.
func (m Machine) ledgerWrite(what string) (done func()) {
	if m.LedgerWrite == nil {
		return func() {}
	}
	return m.LedgerWrite(what)
}
