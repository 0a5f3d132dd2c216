// Package daemon is `catchup daemon`'s scheduler: it fires each task of its
// crontabs at its slots through catchup's run lifecycle, in this process,
// replays missed slots through catchup's scan at start and periodically,
// and stops gracefully on a signal. It imports catchup; nothing in catchup
// imports it.
package daemon

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// Task is one crontab line as the daemon runs it.
type Task struct {
	Def   store.Task         // its registration (an argv task: /bin/sh -c LINE)
	Sched *schedule.Schedule // Def's schedule, parsed
	Req   catchup.RunRequest // the request each fire makes
	Env   []string           // the crontab's variables and what cron sets (SHELL, HOME), over the daemon's environment
	// ZoneFromHost: the line names no zone (no --tz, no CRON_TZ); Def's is
	// the host's, until a shared ledger's registration says otherwise.
	ZoneFromHost bool
	// Replaced is the registration a change of the line's schedule or
	// zone replaced when the line was read (RegisterDaemonTask; its
	// Task.Name is "" when none), and what the registration recorded
	// expired of the slots it missed, for the daemon to log and alert;
	// those its old loop leaves after that are recorded once its fires and
	// replays have ended (left.go).
	Replaced catchup.Replaced
}

// Config is one checked `catchup daemon`.
type Config struct {
	Store       store.Store
	Machine     catchup.Machine
	Tasks       []Task
	Concurrency int           // simultaneous fires and replays; 0: no limit
	Grace       time.Duration // after a stop signal, how long running jobs get before SIGKILL
	Rescan      time.Duration // how often each task's missed slots are replayed (real time)
	Rate        float64       // clock minutes per real minute: 1, or more under the CATCHUP_TEST_MINUTE hook
	Rule        catchup.MissedRule
	MaxReplays  int // per task and replay, as scan's; older missed slots are recorded expired (0: 100)
	Log         *slog.Logger
	// Load reads the crontabs again (SIGHUP, or a file in Watch changed);
	// on an error the tasks stay as they were. It runs in a goroutine of
	// its own, one at a time: a stop does not wait for it (reloads), and
	// its ledger writes with ctx give up waiting for the ledger once a
	// stop came (store.GiveUpWaitsWhen). firesFrom says where each task's
	// new loop may fire from (its registration's: RegisterDaemonTask).
	Load  func(ctx context.Context, firesFrom func(task string) time.Time) ([]Task, error)
	Watch []string
	// Stamp is Watch's stamp (Stamp) taken before Tasks were read: a
	// crontab written after it, while the daemon started, is reloaded.
	// "": taken when Run begins.
	Stamp string
}

// Daemon runs the tasks until stopped.
type Daemon struct {
	cfg      Config
	limiter  chan struct{}
	planners chan struct{} // the scans planning at once (scan_gate.go)
	fires    sync.WaitGroup
	mu       sync.Mutex
	groups   map[int]string // process groups of running jobs, and their tasks (under mu)
	stopped  bool           // set under mu once stopping: begin counts nothing more
	// stopSig, once stopping, is the signal the running jobs' groups were
	// sent (the stop's, then SIGKILL once the grace is over): a job whose
	// start is tracked after it (track) gets it then, not never.
	stopSig syscall.Signal
	health  health
	held    map[string]heldKey   // per task: the held slot its last scan warned of (under mu)
	busy    map[string]heldKey   // per task: the slot whose replay its last scan found the lock held at (under mu)
	ahead   map[string]heldKey   // per task: the ledger's time ahead of the clock its last scan warned of (under mu)
	refused map[string]string    // per task: the refusal of its working directory said last (under mu; refusedNews)
	alerted map[string]missedKey // per task: the missed slots its last alert told of (under mu; alertNews)
	// lineSaid, per task, is the difference of its line from its
	// registration said last (under mu; sayLineDiffers).
	lineSaid map[string]string
	// lostSaid is the refusal to replay from a ledger that lost records,
	// said once across tasks and rescans, again when it changes (scan.go).
	lostSaid saidOnce
	loaded   map[string]loadedLine // per task: the line its loop runs now (under mu; line_current.go)
	starts   catchup.StartGate     // closed before event=stop: no job starts after it, every one before is tracked
	kill     chan struct{}         // closed at the grace's end: each job's runner kills its group (killJobs)
	clock    catchup.ClockWatch    // this host's clock against a shared ledger's server's (checkClock)
	// ledgerWaitBound is how long a fire's ledger write may wait before the
	// ledger counts as failing (ledger_wait.go; a test shortens it).
	ledgerWaitBound time.Duration
}

// New returns a daemon for cfg.
func New(cfg Config) *Daemon {
	if cfg.Rate <= 0 {
		cfg.Rate = 1
	}
	cfg.Store = LedgerTurns(cfg.Store) // outcomes first (ledger_turns.go)
	d := &Daemon{cfg: cfg, groups: map[int]string{}, held: map[string]heldKey{}, busy: map[string]heldKey{}, ahead: map[string]heldKey{}, alerted: map[string]missedKey{},
		refused: map[string]string{}, lineSaid: map[string]string{}, loaded: map[string]loadedLine{}, planners: make(chan struct{}, scansAtOnce),
		ledgerWaitBound: ledgerWaitBound, kill: make(chan struct{})}
	if cfg.Concurrency > 0 {
		d.limiter = make(chan struct{}, cfg.Concurrency)
	}
	return d
}

// Run schedules every task until a signal arrives on stop: then it fires
// nothing new, forwards the signal to running jobs (SIGTERM for SIGQUIT), waits up to the grace
// for them, kills what is left, and returns once their outcomes are
// recorded (interrupted, so that the next start replays their slots).
// A ledger write that waits for a ledger another process holds locked
// gives up (store.GiveUpWaitsWhen): a reload's or a retirement's
// store.LastChance after the stop came, a fire's or a scan's by the end
// of the grace (or once all jobs ended), so that the daemon does not
// outlive its grace waiting for the ledger (but for the outcomes of jobs
// killed then: each waits store.LastChance). What such a write would have
// recorded is found again by the next start or scan.
func (d *Daemon) Run(stop, hup <-chan os.Signal) {
	stopping, stopSeen := context.WithCancel(context.Background()) // done at the stop signal
	lastWrites, giveUpWrites := context.WithCancel(context.Background())
	defer giveUpWrites()
	signals := make(chan os.Signal, 1)
	go func() { // the stop is seen also while Run's loop waits for the ledger
		sig := <-stop
		stopSeen()
		signals <- sig
	}()
	ctx, cancel := context.WithCancel(store.GiveUpWaitsWhen(context.Background(), lastWrites))
	d.cfg.Log.Info("daemon started", "event", "start", "tasks", len(d.cfg.Tasks), "concurrency", d.cfg.Concurrency)
	d.checkClock() // as read by the ledger's open
	s := &tasks{d: d, ctx: ctx, stopping: stopping, gone: lastWrites, running: map[string]*scheduled{}}
	s.set(d.cfg.Tasks, time.Time{})
	changed := make(chan struct{}, 1)
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	stamp := d.cfg.Stamp
	if stamp == "" {
		stamp = Stamp(d.cfg.Watch)
	}
	go watch(wctx, d.cfg.Watch, stamp, changed)
	beat := time.NewTicker(time.Second)
	defer beat.Stop()
	r := reloads{d: d, tasks: s, done: make(chan reloaded, 1), ctx: store.GiveUpWaitsWhen(context.Background(), stopping)}
	var sig os.Signal
	for sig == nil {
		d.health.beat.Store(time.Now().UnixNano())
		select {
		case <-beat.C:
			if r.retryDue() {
				r.start()
			}
			s.retryDue()
		case sig = <-signals: // acted on at once, also while a reload waits for the ledger: its result is ignored
		case <-hup:
			r.start()
		case <-changed:
			r.start()
		case res := <-r.done:
			r.finish(s, res)
		}
	}
	d.starts.Close() // the jobs starting now have started, and are tracked; none starts after
	d.cfg.Log.Info("stopping: firing nothing new", "event", "stop", "signal", sig.String(), "grace", d.cfg.Grace.String())
	cancel()
	// a write waiting then for the ledger gives up by the grace's end
	defer time.AfterFunc(max(d.cfg.Grace-store.LastChance, 0), giveUpWrites).Stop()
	d.mu.Lock()
	d.stopped = true // from here fires only end: nothing is added beside the Wait below
	d.mu.Unlock()
	d.stopJobs(forwarded(sig.(syscall.Signal)))
	done := make(chan struct{})
	go func() { d.fires.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d.cfg.Grace):
		d.cfg.Log.Warn("grace over: killing the jobs still running", "event", "kill")
		d.killJobs(done)
		<-done
	}
	giveUpWrites() // a reload's too: the process exits
	s.loops.Wait()
	s.left.Wait()
	d.cfg.Log.Info("daemon stopped", "event", "exit")
}

// begin counts a fire or replay about to start, in the jobs Run waits for
// on a stop; false once stopping (an Add beside that Wait is a misuse of
// sync.WaitGroup, and a fire then would start nothing anyway).
func (d *Daemon) begin() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return false
	}
	d.fires.Add(1)
	return true
}

// forwarded is the signal running jobs get on a stop by sig: the same one,
// but SIGTERM for SIGQUIT, whose default action dumps core (sh dies at once,
// a JVM prints a thread dump and runs on): a job gets the grace to end.
func forwarded(sig syscall.Signal) syscall.Signal {
	if sig == syscall.SIGQUIT {
		return syscall.SIGTERM
	}
	return sig
}

// stopJobs sends sig to the running jobs' groups, and to each job whose
// start is tracked later (track): a fire that began before the stop may
// start its job an instant after this, and the stop, or the grace's kill,
// would otherwise never reach it.
func (d *Daemon) stopJobs(sig syscall.Signal) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopSig = sig
	for g := range d.groups {
		syscall.Kill(-g, sig)
	}
}

// killFallback is how long, after the grace's end, the jobs' runners have
// to kill their groups before the daemon sends SIGKILL to them itself.
const killFallback = time.Second

// killJobs kills the running jobs at the grace's end. Each job's runner
// kills its group (Machine.JobsKill), judging first what of it outlived
// the job's own process ignoring the stop, so that the grace's kill, sent
// before that judge's delay was over, does not leave it unsaid (the
// daemon's own SIGKILL did: the judge found the group gone). What still
// runs killFallback later (a runner that does not answer) gets SIGKILL
// from the daemon itself, as does a job tracked after that.
func (d *Daemon) killJobs(done <-chan struct{}) {
	close(d.kill)
	select {
	case <-done:
	case <-time.After(killFallback):
		d.stopJobs(syscall.SIGKILL)
	}
}

// track counts the job pid of task as running (on) or ended.
func (d *Daemon) track(task string, pid int, on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, was := d.groups[pid]
	if on != was {
		d.health.running.Add(map[bool]int64{true: 1, false: -1}[on])
	}
	if on {
		d.groups[pid] = task
		if d.stopSig != 0 {
			syscall.Kill(-pid, d.stopSig)
		}
	} else {
		delete(d.groups, pid)
	}
}

// taskBusy reports whether a job of task (a fire's or a replay's) is running.
func (d *Daemon) taskBusy(task string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range d.groups {
		if t == task {
			return true
		}
	}
	return false
}

// maxSleep bounds one sleep of a task's loop: it wakes at least this often
// to read the clock again, so that a wall clock set while it slept (NTP, a
// VM resumed) moves its fire with it.
const maxSleep = 30 * time.Second

// untilDue is how long a task's loop sleeps before its slot on the real
// clock, rate clock minutes per real minute, and whether the slot is due
// now. A timer runs on the monotonic clock: it can wake before the wall
// clock reads the slot, and a job must not start before its slot. So the
// loop fires only once the clock reads the slot; the fire stands for that
// slot however late it starts (RunRequest.FireSlot).
func untilDue(now, slot time.Time, rate float64) (time.Duration, bool) {
	if !now.Before(slot) {
		return 0, true
	}
	return min(time.Duration(float64(slot.Sub(now))/rate), maxSleep), false
}
