package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/daemon"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/internal/hangup"
	"github.com/catchup/catchup/store"
)

// daemonFlags are daemon's flags as given.
type daemonFlags struct {
	crontabs      []string
	concurrency   int
	maxReplays    int
	grace, rescan time.Duration
	logFormat     string
	listen        string
	rule          catchup.MissedRule
}

func newDaemonCmd(g *globals) *cobra.Command {
	var df daemonFlags
	c := &cobra.Command{
		Use:   "daemon --crontab FILE [--crontab FILE]...",
		Short: "Run crontabs in the foreground: a cron that never loses a slot",
		Long: `Read the crontab files, where every job line is a task (named by a "# catchup:
task=NAME" comment on the line before it, by the --task of a "catchup run --task
NAME [flags] --" line, whose flags it uses, or else derived from the command),
replay each task's missed slots, then fire each task at its slots through the
same lifecycle as catchup run, in this process: lock, claim, environment, tails,
retries, pings, notify. With a PostgreSQL ledger, replicas run each slot once
(the slot claim decides). Replicas with different versions of a line (a rolling
crontab edit): the last registration wins; a replica's fire at no slot of
another replica's registration registers its own line, with a warning naming
both and that replica, and one whose line differs says so once.

Each fire stands for its slot, however late it starts. At start, the slots at or
before it (a run a stop cut short, the slots of the downtime) are replayed at
once; --tolerance only spares later ones, which the daemon's own fires may still
reach. SIGHUP, or a changed crontab once it has stayed the same for about 2s,
reloads it (a removed line's task is retired; a crontab with no job line is
refused, at start too). The slots a removed line, or an edited line's old
schedule, missed are recorded expired and alerted (the line's --notify-cmd),
across a restart too: no replay comes for them, catchup backfill runs them. A
reload reads the host's zone again (/etc/localtime, unless TZ names one): after
timedatectl set-timezone, send SIGHUP, and the lines without --tz or CRON_TZ
change to the new zone (a schedule change, warned of naming both). A fire that
ran nothing (the task's lock held by another run, a replica's; the ledger
unreachable) leaves its slot to a replay that runs before the task's next fire,
and at the next rescan, --tolerance or not: no later slot runs before it.
--rescan 0 replays only at start (and those slots, and the slots that passed
while the daemon was frozen or the clock stepped ahead, at once).

SIGTERM, SIGINT or SIGQUIT: fire nothing new, forward the signal to running jobs
(SIGTERM for SIGQUIT, whose default action would dump core), wait up to --grace,
then kill them; runs cut short are recorded interrupted and replayed at the next
start. As PID 1 (a container's entrypoint) it is its own init, as tini is: it
runs the daemon as its only child, forwards it these signals and SIGHUP, reaps
the orphans jobs leave, and exits with the daemon's status (128+N if signal N
killed it). One log line per event on stderr. Exit status: 0 after a signal; 2
on a bad crontab or flag, or a ledger that cannot be opened.`,
		Example: `  catchup daemon --crontab /etc/catchup/crontab --db /data/catchup.db`,
		Args:    noArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return runDaemon(c, g, df) },
	}
	f := c.Flags()
	f.StringArrayVar(&df.crontabs, "crontab", nil, "crontab file whose every job line is a task (repeatable; required)")
	intVar(f, &df.concurrency, "concurrency", 0, "run at most this many jobs (fires and replays) at once; 0: no limit")
	durationVar(f, &df.grace, "grace", 30*time.Second, "after SIGTERM/SIGINT/SIGQUIT, how long running jobs get before SIGKILL")
	durationVar(f, &df.rescan, "rescan", time.Minute, "how often each task's missed slots are replayed (at start too)")
	intVar(f, &df.maxReplays, "max-replays", 100, "replay at most the N most recent missed slots per task and replay, as scan does; older ones are recorded expired (raise it for a dense schedule's long downtime)")
	f.StringVar(&df.logFormat, "log-format", "text", "log lines on stderr: text|json")
	f.StringVar(&df.listen, "listen", "", "serve /healthz and /metrics (catchup metrics plus the scheduler's lag) on this address, like :9090")
	addMissedFlags(c, &df.rule)
	return c
}

// stoppedStarting ends a daemon that a stop signal reached while it
// started: exit 0, as a stop does once it runs; nothing was fired.
func stoppedStarting(sig os.Signal) error {
	name := "a signal"
	if s, ok := sig.(syscall.Signal); ok {
		name = signalName(s)
	}
	fmt.Fprintf(os.Stderr, "catchup: stopped by %s while starting: nothing fired\n", name)
	return nil
}

// distinctFiles refuses a crontab given twice, under one spelling or two
// (its lines would be every task twice).
func distinctFiles(paths []string) error {
	seen := map[string]string{}
	for _, p := range paths {
		key, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("crontab %s: %w", p, err)
		}
		if real, err := filepath.EvalSymlinks(key); err == nil {
			key = real
		}
		if first, ok := seen[key]; ok {
			return fmt.Errorf("--crontab %s names the same file as --crontab %s: give each crontab once", p, first)
		}
		seen[key] = p
	}
	return nil
}

func runDaemon(c *cobra.Command, g *globals, df daemonFlags) error {
	switch {
	case len(df.crontabs) == 0:
		return usageErr(c, errors.New("--crontab is required: the daemon runs the job lines of its crontabs"))
	case slices.Contains(df.crontabs, ""):
		return usageErr(c, errEmptyCrontab)
	case slices.Contains(df.crontabs, "-"):
		return usageErr(c, errors.New("--crontab -: the daemon reads its crontabs again at each reload, so not from standard input; fix: name the crontab file"))
	case df.concurrency < 0:
		return usageErr(c, errors.New("--concurrency cannot be negative (0: no limit)"))
	case df.grace < 0:
		return usageErr(c, errors.New("--grace cannot be negative"))
	case df.rescan < 0:
		return usageErr(c, errors.New("--rescan cannot be negative"))
	case df.maxReplays < 1:
		return usageErr(c, errors.New("--max-replays must be at least 1"))
	case givenEmpty(c, "listen"):
		return usageErr(c, errors.New("--listen is empty: give an address like :9090, or drop --listen to serve nothing"))
	}
	if df.logFormat != "text" && df.logFormat != "json" {
		return usageErr(c, fmt.Errorf("invalid --log-format %s: use text or json", quotedValue(df.logFormat)))
	}
	if err := checkRule(c, &df.rule); err != nil {
		return usageErr(c, err)
	}
	if err := distinctFiles(df.crontabs); err != nil {
		return usageErr(c, err)
	}
	now, rate, err := daemonClock(os.Getenv)
	if err != nil {
		return usageErr(c, err)
	}
	if init, err := asInit(os.Getpid()); init {
		return err
	}
	// The daemon's own signal handlers, from the start: a stop signal
	// while it starts cuts the start (exit 0, nothing fired), also after
	// a SIGHUP (the crontabs are being read anyway: it waits in hup for a
	// reload); from then on Run reads them.
	stop, hup := make(chan os.Signal, 1), make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT) // SIGQUIT too: root catches it for every command
	signal.Notify(hup, syscall.SIGHUP)
	hangup.Handover(hup) // a SIGHUP caught since the package inits: a reload
	defer signal.Stop(stop)
	defer signal.Stop(hup)
	start, cancelStart := context.WithCancel(context.WithoutCancel(c.Context()))
	defer cancelStart()
	var stopSig os.Signal
	started, watching := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watching)
		select {
		case stopSig = <-stop:
			cancelStart()
		case <-started:
		}
	}()
	// startOver ends the start: true when a stop signal cut it.
	startOver := func() bool {
		close(started)
		<-watching
		return stopSig != nil
	}
	st, m, err := openLedger(start, g, true)
	if start.Err() != nil {
		startOver()
		return stoppedStarting(stopSig)
	}
	if err != nil {
		return err
	}
	defer func() { st.Close() }() // the ledger open then (daemon_ledger.go)
	if now != nil {
		m.Now, m.ClockPinned = now, true // a test's minute: no host's clock
	}
	// Jobs' output and the log share stderr: a log record starts on a line
	// of its own however a job's output ended.
	out := &lineWriter{w: os.Stderr}
	m.Stderr = out
	opts := logClock(m.Now)
	var h slog.Handler = slog.NewTextHandler(out.records(), opts)
	if df.logFormat == "json" {
		h = slog.NewJSONHandler(out.records(), opts)
	}
	var watch []string
	for _, f := range df.crontabs {
		if p, err := filepath.Abs(f); err == nil {
			watch = append(watch, p)
		}
	}
	log := slog.New(h)
	if path, err := ledgerPath(g); err == nil {
		st = reopenable(st, path, log) // a SQLite ledger replaced is reopened
	}
	// Its registrations, scans, fires and scrapes take turns for the
	// ledger's connections, outcomes first (catchup/daemon/ledger_turns.go).
	st = daemon.LedgerTurns(st)
	// The registrations' notices (a line's schedule changed), at start and
	// at a reload, are log records.
	lm := m
	lm.Notice = func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...), "event", "warning") }
	noticeFor := func(task string) func(string, ...any) { // a task's: task= as on its other records
		return func(format string, args ...any) {
			log.Warn(fmt.Sprintf(format, args...), "event", "warning", "task", task)
		}
	}
	df.rule.FiredAfter = m.Now() // the daemon fires only later slots: its scans replay these at once
	// The crontabs' stamp before they are read: an edit while the daemon
	// starts (after the read) is a change its watcher reloads.
	stamp := daemon.Stamp(watch)
	// A stop while the tasks are registered ends the start: a write
	// waiting for a ledger another process holds gives up (nothing fired).
	fromStart := func(string) time.Time { return df.rule.FiredAfter } // the first loops fire from the start
	tasks, err := daemonTasks(store.GiveUpWaitsWhen(start, start), st, lm, df.crontabs, fromStart, noticeFor)
	if startOver() {
		return stoppedStarting(stopSig)
	}
	if err != nil {
		return failure(err)
	}
	// Run's context, not the command's, which ends on SIGHUP: a reload
	// must not; its writes give up waiting for the ledger once a stop came.
	// The host's zone is read again at each reload (daemonZone).
	zone := &daemonZone{zone: lm.Zone, shared: st.Shared()}
	load := func(ctx context.Context, firesFrom func(string) time.Time) ([]daemon.Task, error) {
		rm := lm
		rm.Zone = zone.reread(lm.Notice)
		return daemonTasks(ctx, st, rm, df.crontabs, firesFrom, noticeFor)
	}
	d := daemon.New(daemon.Config{Store: st, Machine: m, Tasks: tasks, Concurrency: df.concurrency,
		Grace: df.grace, Rescan: df.rescan, Rate: rate, Rule: df.rule, MaxReplays: df.maxReplays, Log: log, Load: load, Watch: watch, Stamp: stamp})
	if df.listen != "" {
		ln, err := listenDaemon(df.listen)
		if err != nil {
			return usageErr(c, maskedValue{err, redact.ValueIn(err.Error(), df.listen)})
		}
		defer ln.Close()
		serveDaemon(ln, d, st, lm, df.rule) // its warnings are log records, as the registrations' are
		log.Info("serving /healthz and /metrics", "event", "listen", "addr", ln.Addr().String())
	}
	d.Run(stop, hup)
	return nil
}
