package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/store"
)

// scanFlags are scan's flags; the request in it is checked by runScan.
type scanFlags struct {
	output     string
	crontabs   []string
	verbose    bool
	readyAfter time.Duration
	req        catchup.ScanRequest
}

func newScanCmd(g *globals) *cobra.Command {
	var sf scanFlags
	c := &cobra.Command{
		Use:   "scan [flags]",
		Short: "Replay every missed cron slot, oldest first, each exactly once",
		Long: `Compare each task's schedule with the recorded fires and replay every slot that
was missed (the host was down, catchup was killed, the run was interrupted),
oldest first, each once, with CATCHUP_TRIGGER=replay and the CATCHUP_SLOT it
stands for.

Tasks: every task registered with a schedule (catchup run --cron), plus every
"catchup run" line in the --crontab files, whose time fields are the schedule.
Replayed jobs write their output to stderr; stdout carries scan's report.

A missed slot older than the task's catch-up window (run --max-age, else 7d;
scan's --max-age overrides), or dropped by --replay latest or by --max-replays,
is not replayed: it is recorded once as expired, with the reason. The report
says why each slot was missed: host-down, not-fired, clock, lock-busy,
interrupted, ledger-unreachable, ledger-locked (its claim waited too long for
the task's row, held by another session of a shared ledger), lock-file (its fire
could not take this host's lock for the task), failed (with --retry-failed),
paused (given back by resume --replay-paused) or unknown; catchup explain TASK
SLOT tells one slot's story.

Run it at boot (systemd: the packaged catchup-scan.service, ordered before cron,
which starts once scan says so, with --ready-after; or, in cron's unit,
ExecStartPre=-/usr/bin/catchup scan: the "-" is required, since without it a
scan that exits 1 or 2 keeps cron, and every cron job, from starting) and
periodically. When there was nothing to do (no missed slot, nothing recorded),
scan prints nothing unless -v, so a 15-minute timer does not fill the journal;
--dry-run and -o json always print. Exit status: 0 nothing to do or every replay
succeeded; 1 a replay failed (or none of a task's could start: its working
directory refused), or a run --cron task has missed slots no scan can replay
(its command carries a secret the ledger keeps redacted), or a task was not
scanned because the ledger holds a time of it later than now (clock ahead:
catchup reset-clock) or its crontab is missing with its directory (a filesystem
not mounted yet: not retired either), or a crontab or a crontab line was refused
(at every scan that reads it, missed slots or not), or a root scan refused a
user's notes of unrecorded fires (and replayed none of that user's lines), or a
file cron reads beside a crontab scan read in a cron.d directory runs, not
through catchup, a command that crontab runs through catchup (such as the
NAME.bak an older crontab wrap --in-place left: the command runs twice, once
without catchup); 2 error; 128+N stopped by signal N.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runScan(c, g, sf) },
	}
	f := c.Flags()
	f.StringVarP(&sf.output, "output", "o", "table", "output format: table|json")
	f.StringArrayVar(&sf.req.Tasks, "task", nil, "scan only this task (repeatable)")
	f.StringArrayVar(&sf.crontabs, "crontab", nil, "crontab file to discover catchup lines in (repeatable; - is stdin)")
	f.StringVar(&sf.req.Replay, "replay", "", "override each task's policy: all|latest|coalesce|none")
	intVar(f, &sf.req.MaxReplays, "max-replays", 100, "replay at most the N most recent missed slots per task; older ones are recorded expired")
	f.BoolVar(&sf.req.DryRun, "dry-run", false, "print the plan and change nothing")
	f.BoolVarP(&sf.verbose, "verbose", "v", false, "print the report also when there was nothing to do")
	f.StringVar(&sf.req.NotifyCmd, "notify-cmd", "", "run this (sh -c) for each task with missed slots, with CATCHUP_TASK, CATCHUP_STATUS=missed, CATCHUP_MISSED, CATCHUP_MISSED_SLOTS, CATCHUP_MISSED_CAUSES, CATCHUP_REPLAYED, CATCHUP_FAILED, CATCHUP_SKIPPED, CATCHUP_INTERRUPTED, CATCHUP_LEFT, CATCHUP_EXPIRED, CATCHUP_EXPIRED_SLOTS (a list over 200 slots keeps its first and last 100 around \"...\"; also sent, within 5s, for the tasks a stopped scan had started; default: the task's own --notify-cmd)")
	durationVar(f, &sf.readyAfter, "ready-after", defaultReadyAfter, "under systemd (Type=notify: NOTIFY_SOCKET), say the scan has started after DUR, or at its end if sooner: the units ordered after it (cron) start then, its replays running on")
	addMissedFlags(c, &sf.req.MissedRule)
	addParallelFlags(c, &sf.req.Parallel)
	c.RegisterFlagCompletionFunc("task", completeTasks(g))
	return c
}

func runScan(c *cobra.Command, g *globals, sf scanFlags) (err error) {
	if err := checkOutput(sf.output, "table", "json"); err != nil {
		return usageErr(c, err)
	}
	if err := checkRule(c, &sf.req.MissedRule); err != nil {
		return usageErr(c, err)
	}
	if sf.req.MaxReplays < 1 {
		return usageErr(c, fmt.Errorf("--max-replays must be at least 1"))
	}
	if slices.Contains(sf.req.Tasks, "") {
		return usageErr(c, fmt.Errorf("empty --task: name a task (catchup ls lists them)"))
	}
	if givenEmpty(c, "replay") {
		return usageErr(c, errEmptyReplay)
	}
	if givenEmpty(c, "notify-cmd") {
		return usageErr(c, errEmptyNotify)
	}
	if givenBlank(c, "notify-cmd") {
		return usageErr(c, errBlankNotify)
	}
	if sf.req.Replay != "" {
		if err := catchup.CheckPolicy(sf.req.Replay); err != nil {
			return usageErr(c, err)
		}
	}
	sf.req.Tasks = distinct(sf.req.Tasks) // a task named twice is scanned once, by one worker
	if err := checkParallel(sf.req.Parallel); err != nil {
		return usageErr(c, err)
	}
	if sf.readyAfter < 0 {
		return usageErr(c, fmt.Errorf("--ready-after cannot be negative"))
	}
	ready := systemdReady(sf.readyAfter, c.ErrOrStderr()) // before the ledger's open takes the environment
	defer func() { ready(exitCodeOf(err) == exitError) }()
	if slices.Contains(sf.crontabs, "") {
		return usageErr(c, errEmptyCrontab)
	}
	for _, p := range sf.crontabs {
		src, err := readCrontab(p)
		if err != nil {
			return failure(err)
		}
		sf.req.Crontabs = append(sf.req.Crontabs, src)
	}
	openFn := openLedger
	if sf.req.DryRun && len(sf.req.Crontabs) == 0 {
		// A probe: a mistyped --db fails instead of reporting nothing
		// missed. With --crontab it previews a crontab's lines, on a new
		// ledger too.
		openFn = openReadingLedger
	}
	if !sf.req.DryRun {
		if err := refuseSharedLedgerDir(g); err != nil {
			return err
		}
	}
	st, m, err := openFn(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	catchup.WarnClockSkew(st, m)
	if !sf.req.DryRun && !store.IsPostgres(m.DB) {
		if err := store.CheckPrivate(m.DB, m.UID); err != nil {
			return failure(fmt.Errorf("refusing to replay: %w", err))
		}
		if lost := store.LostRecords(st); lost != "" { // a replay could run a slot again
			return failure(fmt.Errorf("refusing to replay: %s", lost))
		}
	}
	if sf.req.DryRun && store.OpenWarning(st) == "" {
		if lost := store.LostRecords(st); lost != "" { // what the scan it previews would do
			m.Notice("warning: scan would refuse to replay: %s", lost)
		}
	}
	endBar := func() {}
	if isTerminal(os.Stderr) && !sf.req.DryRun {
		bar := &progressBar{w: os.Stderr}
		sf.req.Progress, endBar = bar.update, bar.finish
		m.Stderr = bar
		m.Notice = func(format string, args ...any) {
			fmt.Fprintf(bar, "catchup: %s\n", printable(fmt.Sprintf(format, args...)))
		}
	}
	rep, err := catchup.Scan(c.Context(), st, m, sf.req)
	endBar()
	if err != nil {
		if rep.NotesKept != nil {
			m.Notice("%v", rep.NotesKept)
		}
		return failure(err)
	}
	for _, w := range rep.Warnings {
		m.Notice("warning: %s", w)
	}
	for _, t := range rep.Tasks {
		for _, w := range t.Warnings {
			m.Notice("warning: %s", w)
		}
	}
	out := c.OutOrStdout()
	if sf.output == "json" {
		err = writeScanJSON(out, rep, sf.req.DryRun)
	} else if sf.verbose || sf.req.DryRun || !nothingToDo(rep) {
		err = writeScanText(out, rep, sf.req.DryRun)
	}
	if err != nil {
		return failure(err)
	}
	if rep.Stopped {
		return scanStopped(c.Context(), rep)
	}
	if rep.NotesKept != nil {
		return failure(rep.NotesKept)
	}
	if rep.Failed() {
		return &exitStatus{code: exitFound}
	}
	return nil
}

// scanStopped ends a scan a signal cut short, after its report: one line
// on what is left, and 128+N as a shell reports a job killed by signal N.
func scanStopped(ctx context.Context, rep catchup.ScanReport) error {
	sig, ok := stoppedBy(ctx)
	if !ok {
		sig = syscall.SIGTERM
	}
	n := 0
	for _, ts := range rep.Tasks {
		n += ts.Interrupted
	}
	cut := "no replay was cut short"
	switch {
	case n == 1:
		cut = "the replay it cut short is recorded interrupted"
	case n > 1: // --concurrency: one per lane
		cut = fmt.Sprintf("the %d replays it cut short are recorded interrupted", n)
	}
	tasks := "tasks"
	if rep.NotScanned == 1 {
		tasks = "task"
	}
	return &exitStatus{code: 128 + int(sig), err: fmt.Errorf("scan stopped by %s: %s; "+
		"%d %s not scanned; the next scan replays what is left", signalName(sig), cut, rep.NotScanned, tasks)}
}

// readCrontab names a crontab for scan: stdin is read here; a file is
// read by scan itself, through cron's checks of its owner and mode.
func readCrontab(name string) (catchup.CrontabSource, error) {
	src := catchup.CrontabSource{Name: name}
	if name != "-" {
		var err error
		src.Path, err = filepath.Abs(name)
		return src, err
	}
	src.Name = "(stdin)"
	data, err := crontab.Read(os.Stdin)
	if errors.Is(err, crontab.ErrTooLarge) {
		return src, fmt.Errorf("crontab (stdin): %w; fix: pipe in only its cron lines (a crontab is a few KB)", err)
	}
	if err != nil {
		return src, fmt.Errorf("read crontab: %w", err)
	}
	src.R = bytes.NewReader(data)
	return src, nil
}

func isTerminal(f *os.File) bool {
	// A terminal answers the terminal ioctl; /dev/null, another character
	// device, does not.
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// distinct is names without repeats, in their first order.
func distinct(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
