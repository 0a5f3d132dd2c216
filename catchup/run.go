package catchup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// Exit statuses of `catchup run` beyond the command's own.
const (
	ExitTimeout   = 124
	ExitInternal  = 125 // catchup failed before starting the command
	ExitLocked    = 75  // another run of the task holds the lock (EX_TEMPFAIL)
	tailSize      = 64 << 10
	maxRetryDelay = time.Hour
)

// Skip reasons recorded on skipped runs. A lock skip leaves its slot
// missed (scan replays it); a policy skip settles its slot for good.
const (
	ReasonLocked     = "another run of the task held the lock"
	reasonPolicy     = "skipped by replay policy %q"
	reasonMaxReplays = "beyond --max-replays %d"
)

// RunConfig is one `catchup run` invocation.
type RunConfig struct {
	Task       string
	Cron       string // registers the schedule when set
	TZ         string // IANA zone; "" = local
	Replay     string // all | latest | none, stored with the task
	Tolerance  time.Duration
	Timeout    time.Duration
	KillAfter  time.Duration
	Slot       time.Time // --slot: an explicit slot, trigger manual
	ReplaySlot time.Time // CATCHUP_REPLAY_SLOT: set by scan, trigger replay
	Force      bool
	Wait       bool
	Strict     bool
	NoCapture  bool
	Retries    int
	RetryDelay time.Duration
	Argv       []string
	Dir        string // working directory recorded for replays
	Shared     bool   // the ledger is shared by several hosts (PostgreSQL)
	FailOpen   bool   // shared ledger unreachable: run anyway
	Ping       string // healthchecks-style ping URL
	NotifyCmd  string // sh -c command run when a run fails, times out or is interrupted
}

// RunResult is what happened, for the exit status and for scan.
type RunResult struct {
	ExitCode int
	Run      store.Run // the last attempt (zero ID when nothing was recorded)
	Ran      bool      // the command was started
	Skipped  bool      // lock held, or the slot was already done
}

// Run is the whole lifecycle of one fire: resolve the slot, lock, claim,
// execute, record, retry. st may be nil when the ledger could not be opened
// (openErr says why): the command then still runs unless cfg.Strict.
func Run(ctx context.Context, st store.Store, openErr error, m Machine, cfg RunConfig) (RunResult, error) {
	if err := ValidateTaskName(cfg.Task); err != nil {
		return RunResult{ExitCode: ExitInternal}, err
	}
	if len(cfg.Argv) == 0 {
		return RunResult{ExitCode: ExitInternal}, usagef("no command given: catchup run --task NAME -- COMMAND [ARG...]")
	}
	if _, err := loadZone(cfg.TZ); err != nil {
		return RunResult{ExitCode: ExitInternal}, err
	}
	if _, err := parseTaskSchedule(cfg.Cron, cfg.TZ); err != nil {
		return RunResult{ExitCode: ExitInternal}, err
	}
	if !cfg.ReplaySlot.IsZero() {
		// A replay stands for a slot of the task as registered (by the
		// crontab line or an earlier fire): never re-register from the
		// replayed line's flags, and take the zone and the previous slot
		// from the registered schedule.
		cfg.Cron, cfg.TZ = "", ""
	}
	sched, err := parseTaskSchedule(cfg.Cron, cfg.TZ)
	if err != nil {
		return RunResult{ExitCode: ExitInternal}, err
	}
	l := &lifecycle{st: st, m: m, cfg: cfg, sched: sched}
	if err := l.checkSlot(); err != nil {
		return RunResult{ExitCode: ExitInternal}, err
	}
	if st == nil {
		return l.unrecorded(ctx, openErr)
	}
	if sched == nil {
		task, err := st.Task(ctx, cfg.Task)
		switch {
		case err == nil:
			l.registered = &task
			if l.sched, err = parseTaskSchedule(task.Schedule, task.TZ); err != nil {
				m.notice("task %s: registered schedule ignored: %v", cfg.Task, err)
				l.sched = nil
			}
		case errors.Is(err, store.ErrNotFound):
		default:
			return l.unrecorded(ctx, err)
		}
	}
	if err := l.checkSlot(); err != nil {
		return RunResult{ExitCode: ExitInternal}, err
	}
	return l.run(ctx)
}

// checkSlot refuses an explicit --slot that is not a slot of the schedule:
// it would record a run for an instant the task never stands for.
func (l *lifecycle) checkSlot() error {
	if l.cfg.Slot.IsZero() {
		return nil
	}
	if l.cfg.Slot.After(l.m.Now()) {
		// A slot from the future would look like a clock that went back,
		// and stop scan from replaying the task until then.
		return usagef("--slot %s is in the future: catchup only runs slots that have come", l.cfg.Slot.Format(time.RFC3339))
	}
	if l.sched == nil {
		return nil
	}
	if p, ok := l.sched.Prev(l.cfg.Slot); !ok || !p.Equal(l.cfg.Slot) {
		return usagef("--slot %s is not a slot of %q in %s; see catchup ls for the task's slots",
			l.cfg.Slot.Format(time.RFC3339), l.sched.Expr(), l.sched.Location())
	}
	return nil
}

// parseTaskSchedule parses expr in zone tz; "" expr means no schedule.
func parseTaskSchedule(expr, tz string) (*Schedule, error) {
	if expr == "" {
		return nil, nil
	}
	loc, err := loadZone(tz)
	if err != nil {
		return nil, err
	}
	s, err := ParseSchedule(expr, loc)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return s, nil
}

// loadZone resolves an IANA zone name; "" and "Local" are the local zone.
func loadZone(tz string) (*time.Location, error) {
	if tz == "" || tz == "Local" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, usagef("unknown time zone %q: use an IANA name such as Europe/Berlin", tz)
	}
	return loc, nil
}

// lifecycle carries one invocation through its steps.
type lifecycle struct {
	st          store.Store
	m           Machine
	cfg         RunConfig
	sched       *Schedule
	registered  *store.Task
	pinger      *Pinger
	pingStarted <-chan struct{}
	checkpoint  string // the note of an interrupted run of the slot, for a replay
}

// slot resolves which slot this fire stands for, and its trigger.
func (l *lifecycle) slot() (time.Time, string) {
	switch {
	case !l.cfg.ReplaySlot.IsZero():
		return l.cfg.ReplaySlot.UTC(), store.TriggerReplay
	case !l.cfg.Slot.IsZero():
		return l.cfg.Slot.UTC(), store.TriggerManual
	case l.sched != nil:
		now := l.m.Now()
		if tick, ok := l.sched.Prev(now); ok && now.Sub(tick) <= l.cfg.Tolerance {
			return tick, store.TriggerSchedule
		}
	}
	return time.Time{}, store.TriggerManual
}

// registration is the task row a --cron fire upserts with its claim. A
// task registers as of the slot its first fire stands for (or now), so that
// this slot is itself covered by the missed-slot rule.
func (l *lifecycle) registration(now, slot time.Time) *store.Task {
	if l.cfg.Cron == "" {
		return nil
	}
	replay := l.cfg.Replay
	if replay == "" {
		replay = "all"
	}
	return &store.Task{
		Name: l.cfg.Task, Schedule: l.cfg.Cron, TZ: l.cfg.TZ, Replay: replay,
		Argv: l.cfg.Argv, Dir: l.cfg.Dir, Source: "run", Retries: l.cfg.Retries,
		RetryDelay: l.cfg.RetryDelay, RegisteredAt: earliest(now, slot), UpdatedAt: now,
		Timeout: l.cfg.Timeout, KillAfter: l.cfg.KillAfter, NoCapture: l.cfg.NoCapture, NotifyCmd: l.cfg.NotifyCmd,
		// Nothing before the first slot is missed; on a schedule change the
		// ledger takes this as the moment the new schedule counts from.
		SettledThrough: earliest(now, slot).Add(-time.Second),
	}
}

// unrecorded runs the command without the ledger: a bookkeeping fault must
// not cause the very missed run catchup exists to prevent.
func (l *lifecycle) unrecorded(ctx context.Context, cause error) (RunResult, error) {
	if res, refused := l.refuseUnclaimed(cause); refused {
		return res, nil
	}
	if l.cfg.Strict {
		return RunResult{ExitCode: ExitInternal}, fmt.Errorf("ledger unavailable, not running (--strict): %w", cause)
	}
	l.m.notice("ledger unavailable, running %s unrecorded: %v", l.cfg.Task, cause)
	slot, trigger := l.slot()
	lock, err := openTaskLock(l.m.LockDir, l.cfg.Task, l.m.UID)
	if err != nil {
		lock = nil // no lock directory either: run anyway
	} else {
		defer lock.close()
		ok, err := lock.tryLock()
		switch {
		case err == nil && !ok && !l.cfg.Wait:
			l.m.notice("task %s is already running (lock held); skipped, exit %d", l.cfg.Task, ExitLocked)
			return RunResult{ExitCode: ExitLocked, Skipped: true}, nil
		case err == nil && !ok:
			if err := lock.wait(ctx); err != nil {
				if ctx.Err() != nil {
					l.m.notice("task %s: stopped while waiting for the lock; not run", l.cfg.Task)
					return RunResult{ExitCode: ExitLocked, Skipped: true}, nil
				}
				lock = nil
			}
		case err != nil:
			lock = nil
		}
	}
	res := l.execute(ctx, lock, store.Run{Task: l.cfg.Task, Slot: slot, Trigger: trigger, Attempt: 1})
	return RunResult{ExitCode: res.ExitCode, Ran: res.Started}, nil
}

// writeFault reports a ledger write fault before the command started.
func (l *lifecycle) writeFault(ctx context.Context, lock *taskLock, r store.Run, err error) (RunResult, error) {
	if res, refused := l.refuseUnclaimed(err); refused {
		return res, nil
	}
	if l.cfg.Strict {
		return RunResult{ExitCode: ExitInternal}, fmt.Errorf("cannot record the run (--strict): %w", err)
	}
	l.m.notice("cannot record the run, running %s unrecorded: %v", l.cfg.Task, err)
	res := l.execute(ctx, lock, r)
	return RunResult{ExitCode: res.ExitCode, Ran: res.Started}, nil
}

func exitCodePtr(code int) *int { return &code }

// refuseUnclaimed is the default with a shared ledger that cannot be
// reached: without a claim, every host would run the slot, so none does
// (exit 75); the next scan replays it. --fail-open runs it anyway.
func (l *lifecycle) refuseUnclaimed(cause error) (RunResult, bool) {
	if !l.cfg.Shared || l.cfg.FailOpen {
		return RunResult{}, false
	}
	l.m.notice("shared ledger %s unreachable: not running %s, so that no two hosts run one slot; "+
		"the next scan replays it (--fail-open runs it anyway): %v", l.m.Where, l.cfg.Task, cause)
	return RunResult{ExitCode: ExitLocked, Skipped: true}, true
}

// earliest returns the earlier of two times, ignoring a zero one.
func earliest(a, b time.Time) time.Time {
	if b.IsZero() || a.Before(b) {
		return a
	}
	return b
}
