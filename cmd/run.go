package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/catchup/taskname"
)

// runFlags are run's flags as given; request checks them.
type runFlags struct {
	task, cron, tz, replay, ping, notifyCmd, onBusy, pingFile string
	tolerance, timeout, killAfter, retryDelay, maxAge         time.Duration
	retries                                                   int
	force, strict, noCapture, failOpen, manual, maxAgeGiven   bool
	cronGiven, tzGiven, onBusyGiven, pingGiven                bool
	notifyCmdGiven, pingFileGiven, taskGiven                  bool
	wait                                                      waitValue
	slot                                                      slotValue
}

func newRunCmd(g *globals) *cobra.Command {
	var rf runFlags
	c := &cobra.Command{
		Use:   "run --task NAME [flags] -- COMMAND [ARG...]",
		Short: "Run a command as one fire of a task, recording it in the ledger",
		Long: `Run COMMAND as one fire of task NAME: take the task's lock, claim the cron slot
it stands for, run it with stdin/stdout/stderr passed through, and record the
outcome.

The command gets CATCHUP_TASK, CATCHUP_RUN_ID, CATCHUP_SLOT (RFC 3339 in the
task's zone; empty for a manual run), CATCHUP_SLOT_UNIX, CATCHUP_PREV_SLOT,
CATCHUP_TRIGGER (schedule|replay|manual|retry|backfill), CATCHUP_ATTEMPT,
CATCHUP_DB (without its password) and CATCHUP_PROGRESS_FD (for catchup
progress); a coalesced replay also gets CATCHUP_COALESCED (the number of slots
it stands for). It does not get CATCHUP_DB_FILE nor CATCHUP_PING_URL.

A fire stands for the latest slot at or before now, however late (older than
--max-age too, which bounds scan's replays only), when that slot is the task's;
a fire whose slot already ran is a duplicate and runs nothing. A
--cron or --tz other than the registered one changes the task's schedule from
this fire: the slots missed under the old one are recorded expired
(schedule-changed) and the task's --notify-cmd hears of them after the job
(catchup backfill runs that gap again).

Exit status: the command's own; 128+N when it died of signal N; 124 timeout;
125 catchup failed before starting it; 126 not executable; 127 not found;
75 another run of the task holds the lock (see --on-busy). A fire whose slot is
already settled exits 0 without running (--manual runs the task by hand).

If the ledger cannot be opened or written, the command still runs and catchup
says so on stderr; with --strict it exits 125 without running it.`,
		Example: `  # a crontab line
  0 2 * * * catchup run --task daily-settle --cron '0 2 * * *' -- /opt/settle.sh`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			started := time.Now() // --wait DUR counts from here: opening the ledger is part of it
			args, err := runArgs(c, &rf, args)
			if err != nil {
				return usageErr(c, err)
			}
			req, err := rf.request(args, os.Getenv, os.Stderr)
			if err != nil {
				return usageErr(c, err)
			}
			req.Started = started
			return runRun(c, g, req)
		},
	}
	bindRunFlags(c, &rf)
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr(c, tooLong(unknownShorthand(rf.wait.negativeLimit(flagGivenTwice(c, err)))))
	})
	c.RegisterFlagCompletionFunc("task", completeTasks(g))
	return c
}

// runArgs completes run's flags from its arguments: the command, and the
// limit of "--wait DUR", which pflag leaves among them (the flags after it
// are run's too).
// runArgs takes a --wait DUR limit from the arguments and returns the command.
func runArgs(c *cobra.Command, rf *runFlags, args []string) ([]string, error) {
	if rest, took := rf.wait.takeLimit(args, c.ArgsLenAtDash()); took {
		if err := c.Flags().Parse(rest); err != nil {
			return nil, tooLong(unknownShorthand(flagGivenTwice(c, err)))
		}
		args = c.Flags().Args()
	}
	if rf.wait.err != nil {
		return nil, rf.wait.err
	}
	return args, nil
}

func bindRunFlags(c *cobra.Command, rf *runFlags) {
	f := c.Flags()
	f.SetInterspersed(false) // everything after COMMAND belongs to COMMAND
	f.Var(givenString{&rf.task, &rf.taskGiven}, "task", "task name: [A-Za-z0-9][A-Za-z0-9._-]{0,127} (required)")
	f.Var(givenString{&rf.cron, &rf.cronGiven}, "cron", "the task's schedule: 5-field cron, or @hourly, @daily, @weekly, @monthly or @yearly; registers the task for scan")
	f.Var(givenString{&rf.tz, &rf.tzGiven}, "tz", "IANA time zone of the schedule (default: $CRON_TZ, else cron's zone: /etc/localtime's, not $TZ)")
	durationVar(f, &rf.tolerance, "tolerance", 5*time.Minute, "how late the first fire of a schedule may be and still count as its slot's scheduled run")
	durationVar(f, &rf.timeout, "timeout", 0, "kill the command after this long (SIGTERM, then SIGKILL after --kill-after); exit 124")
	durationVar(f, &rf.killAfter, "kill-after", 10*time.Second, "delay between SIGTERM and SIGKILL on timeout")
	f.Var(&rf.slot, "slot", "run for this explicit slot (RFC 3339)")
	f.BoolVar(&rf.force, "force", false, "run even if the slot already succeeded")
	f.Var(&rf.wait, "wait", "wait for the task's lock instead of skipping (exit 75); --wait DUR gives up DUR after this fire started, like flock -w")
	f.Lookup("wait").NoOptDefVal = waitNoLimit
	f.BoolVar(&rf.manual, "manual", false, "run by hand: trigger manual, no slot, whatever the state of the task's slots")
	f.Var(givenString{&rf.onBusy, &rf.onBusyGiven}, "on-busy", "when the task is still running: replay (skip, exit 75; scan replays the slot), skip (skip and settle the slot), wait (stored with the task; default replay)")
	f.BoolVar(&rf.strict, "strict", false, "do not run the command when the ledger is unusable (exit 125)")
	f.StringVar(&rf.replay, "replay", "all", "what scan replays after an outage: all|latest|coalesce|none (stored with the task)")
	givenDurationVar(f, &rf.maxAge, &rf.maxAgeGiven, "max-age", "the task's catch-up window: scan replays no slot older than this and records it expired (stored with the task; default, and 0 with a warning: scan's --max-age, else 7d)")
	intVar(f, &rf.retries, "retries", 0, "retry a failed attempt this many times, with exponential backoff")
	durationVar(f, &rf.retryDelay, "retry-delay", time.Minute, "delay before the first retry (doubles each time, capped at 1h)")
	f.BoolVar(&rf.noCapture, "no-capture", false, "do not keep output tails in the ledger")
	f.BoolVar(&rf.failOpen, "fail-open", false, "shared ledger: run the command even when the ledger is unreachable (risks a run on several hosts)")
	f.Var(givenString{&rf.ping, &rf.pingGiven}, "ping", "healthchecks-style monitor URL: URL/start before, URL or URL/<exit code> after (never delays or fails the job; env CATCHUP_PING_URL); one monitor: given twice, a usage error")
	f.Var(givenString{&rf.notifyCmd, &rf.notifyCmdGiven}, "notify-cmd", "run this (sh -c) when the run fails, times out or is interrupted, with CATCHUP_STATUS, CATCHUP_EXIT_CODE, CATCHUP_STDERR_TAIL; one command: given twice, a usage error")
	f.Var(givenString{&rf.pingFile, &rf.pingFileGiven}, "ping-file", "read the --ping URL from this file, keeping it out of ps")
}

// request turns run's flags, its command and the environment
// (CATCHUP_REPLAY_SLOT, CATCHUP_REPLAY_PREV_SLOT, CATCHUP_REPLAY_COALESCED,
// CRON_TZ) into a checked request: the one place where run's input is
// checked. Every error is a usage error (exit 125). A bad
// CRON_TZ is only a warning, on stderr: it is no reason to miss the run.
func (f *runFlags) request(argv []string, getenv func(string) string, stderr io.Writer) (catchup.RunRequest, error) {
	req := catchup.RunRequest{Task: f.task, Replay: f.replay, Tolerance: f.tolerance, Timeout: f.timeout,
		KillAfter: f.killAfter, Force: f.force, Wait: f.wait.set, WaitLimit: f.wait.limit,
		Manual: f.manual, OnBusy: f.onBusy, Strict: f.strict, NoCapture: f.noCapture,
		Retries: f.retries, RetryDelay: f.retryDelay, Argv: argv, FailOpen: f.failOpen, Ping: f.ping,
		NotifyCmd: f.notifyCmd, MaxAge: f.maxAge}
	if f.task == "" && f.taskGiven {
		return req, errors.New("--task is empty: name the task (1-128 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit)")
	}
	if f.task == "" {
		return req, errors.New("--task is required")
	}
	if err := taskname.Check(f.task); err != nil {
		return req, err
	}
	if len(argv) == 0 {
		return req, errors.New("no command given: catchup run --task NAME -- COMMAND [ARG...]")
	}
	if argv[0] == "" {
		return req, errors.New("the command is empty: catchup run --task NAME -- COMMAND [ARG...]")
	}
	if err := catchup.CheckPolicy(f.replay); err != nil {
		return req, err
	}
	if f.pingGiven && f.pingFileGiven {
		return req, crontab.PingAndPingFile()
	}
	if err := f.emptyGiven(); err != nil {
		return req, err
	}
	if f.maxAge < 0 {
		return req, errors.New("--max-age cannot be negative: it is how far back scan replays the task's slots")
	}
	if f.maxAge == 0 && f.maxAgeGiven {
		// Read as no window of the task's own, as it always was: refusing it
		// would stop the jobs of the lines that have it.
		fmt.Fprintf(stderr, "catchup: warning: --max-age 0 gives task %s no catch-up window of its own: scan replays its missed slots back to "+
			"scan's --max-age, else %s, as without --max-age (scan and catchup daemon refuse a crontab line with it); fix: drop --max-age, "+
			"or give the window, such as 3d\n", f.task, catchup.FormatDuration(catchup.DefaultMaxAge))
	}
	switch f.onBusy {
	case "", "replay", "skip", "wait":
	default:
		return req, fmt.Errorf("invalid --on-busy %s: use replay, skip or wait", quotedValue(f.onBusy))
	}
	if f.manual && f.slot.set {
		return req, errors.New("--manual and --slot exclude each other: a manual run stands for no slot")
	}
	if f.manual && f.force {
		// A warning, not a refusal: the run it asks for is well defined.
		fmt.Fprintln(stderr, "catchup: warning: --force does nothing with --manual: a manual run stands for no slot, so it is never a duplicate; fix: drop --force")
	}
	req.Ping = checkedPing(pingURL(f.ping, f.pingFile, getenv, stderr), stderr)
	for _, v := range []struct {
		name     string
		negative bool
	}{{"--retries", f.retries < 0}, {"--tolerance", f.tolerance < 0}, {"--timeout", f.timeout < 0},
		{"--kill-after", f.killAfter < 0}, {"--retry-delay", f.retryDelay < 0}} {
		if v.negative {
			return req, fmt.Errorf("%s cannot be negative", v.name)
		}
	}
	var err error
	if f.slot.set {
		if req.Slot, err = parseSlot("--slot", f.slot.text); err != nil {
			return req, err
		}
	}
	if v := getenv("CATCHUP_REPLAY_SLOT"); v != "" {
		if req.ReplaySlot, err = parseSlot("CATCHUP_REPLAY_SLOT", v); err != nil {
			return req, err
		}
		// scan's coalesced replay: the range it stands for.
		if v := getenv("CATCHUP_REPLAY_PREV_SLOT"); v != "" {
			if req.PrevSlot, err = time.Parse(time.RFC3339, v); err != nil {
				return req, fmt.Errorf("invalid CATCHUP_REPLAY_PREV_SLOT %q: want RFC 3339", v)
			}
		}
		// backfill's run of a crontab line: trigger backfill, and --only all.
		if v := getenv("CATCHUP_BACKFILL_AFTER"); v != "" {
			if req.AfterRun, err = strconv.ParseInt(v, 10, 64); err != nil || req.AfterRun < 0 {
				return req, fmt.Errorf("invalid CATCHUP_BACKFILL_AFTER %q: want a run id", v)
			}
			req.Backfill, req.Force, req.Wait = true, getenv("CATCHUP_BACKFILL_FORCE") == "1", true
			if req.ClaimSaid, err = parseRunIDs(catchup.EnvBackfillSaid, getenv(catchup.EnvBackfillSaid)); err != nil {
				return req, err
			}
		}
		// scan's replay: the newest run id it read of the task.
		if v := getenv("CATCHUP_REPLAY_AFTER"); v != "" && !req.Backfill {
			if req.AfterRun, err = strconv.ParseInt(v, 10, 64); err != nil || req.AfterRun < 0 {
				return req, fmt.Errorf("invalid CATCHUP_REPLAY_AFTER %q: want a run id", v)
			}
			req.ReadRuns = true
		}
		// scan's replay, backfill's run: the task's registration as read.
		if v := getenv("CATCHUP_REPLAY_REGISTERED"); v != "" {
			if req.Registered, err = time.Parse(time.RFC3339Nano, v); err != nil {
				return req, fmt.Errorf("invalid CATCHUP_REPLAY_REGISTERED %q: want RFC 3339", v)
			}
		}
		// scan's replay: the task's row as read (its last registration).
		if v := getenv("CATCHUP_REPLAY_UPDATED"); v != "" && !req.Backfill {
			if req.Updated, err = time.Parse(time.RFC3339Nano, v); err != nil {
				return req, fmt.Errorf("invalid CATCHUP_REPLAY_UPDATED %q: want RFC 3339", v)
			}
		}
		if v := getenv("CATCHUP_REPLAY_COALESCED"); v != "" {
			if req.Coalesced, err = strconv.Atoi(v); err != nil || req.Coalesced < 1 {
				return req, fmt.Errorf("invalid CATCHUP_REPLAY_COALESCED %q: want a count", v)
			}
		}
	}
	if f.tz == "" && f.tzGiven {
		return req, errEmptyTZ
	}
	zone, err := f.zone(&req, getenv, stderr)
	if err != nil {
		return req, err
	}
	if f.cron != "" || f.cronGiven { // an empty --cron given is refused, never read as none
		if req.Schedule, err = schedule.Parse(f.cron, zone); err != nil {
			return req, err
		}
	}
	return req, nil
}
