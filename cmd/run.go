package cmd

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// runFlags are run's flags before validation.
type runFlags struct {
	cfg      catchup.RunConfig
	slot     string
	pingFile string
}

func newRunCmd(g *globals) *cobra.Command {
	var rf runFlags
	c := &cobra.Command{
		Use:   "run --task NAME [flags] -- COMMAND [ARG...]",
		Short: "Run a command as one fire of a task, recording it in the ledger",
		Long: `Run COMMAND as one fire of task NAME: take the task's lock, claim the cron slot it
stands for, run it with stdin/stdout/stderr passed through, and record the outcome.

The command gets CATCHUP_TASK, CATCHUP_RUN_ID, CATCHUP_SLOT (RFC 3339 in the task's zone;
empty for a manual run), CATCHUP_SLOT_UNIX, CATCHUP_PREV_SLOT, CATCHUP_TRIGGER
(schedule|replay|manual|retry), CATCHUP_ATTEMPT, CATCHUP_DB (without its password) and
CATCHUP_PROGRESS_FD (for catchup progress). It does not get CATCHUP_DB_FILE nor
CATCHUP_PING_URL.

Exit status: the command's own; 128+N when it died of signal N; 124 timeout;
125 catchup failed before starting it; 126 not executable; 127 not found;
75 another run of the task holds the lock. A slot that already succeeded exits 0
without running.

If the ledger cannot be opened or written, the command still runs and catchup
says so on stderr; with --strict it exits 125 without running it.`,
		Example: `  # a crontab line
  0 2 * * * catchup run --task daily-settle --cron '0 2 * * *' -- /opt/settle.sh`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			rf.cfg.Argv = args
			if rf.pingFile != "" && rf.cfg.Ping != "" {
				return usageErr(c, errors.New("--ping and --ping-file both name the monitor: give one"))
			}
			rf.cfg.Ping = pingURL(rf.cfg.Ping, rf.pingFile)
			return runRun(c, g, rf.cfg, rf.slot)
		},
	}
	bindRunFlags(c, &rf)
	c.RegisterFlagCompletionFunc("task", completeTasks(g))
	return c
}

func bindRunFlags(c *cobra.Command, rf *runFlags) {
	cfg := &rf.cfg
	f := c.Flags()
	f.SetInterspersed(false) // everything after COMMAND belongs to COMMAND
	f.StringVar(&cfg.Task, "task", "", "task name: [A-Za-z0-9][A-Za-z0-9._-]{0,127} (required)")
	f.StringVar(&cfg.Cron, "cron", "", "the task's schedule: 5-field cron or @hourly/@daily/@weekly/@monthly/@yearly; registers the task for scan")
	f.StringVar(&cfg.TZ, "tz", "", "IANA time zone of the schedule (default: $CRON_TZ, else the local zone)")
	durationVar(f, &cfg.Tolerance, "tolerance", 5*time.Minute, "how late a fire may be and still count as its slot's scheduled run")
	durationVar(f, &cfg.Timeout, "timeout", 0, "kill the command after this long (SIGTERM, then SIGKILL after --kill-after); exit 124")
	durationVar(f, &cfg.KillAfter, "kill-after", 10*time.Second, "delay between SIGTERM and SIGKILL on timeout")
	f.StringVar(&rf.slot, "slot", "", "run for this explicit slot (RFC 3339)")
	f.BoolVar(&cfg.Force, "force", false, "run even if the slot already succeeded")
	f.BoolVar(&cfg.Wait, "wait", false, "wait for the task's lock instead of skipping (exit 75)")
	f.BoolVar(&cfg.Strict, "strict", false, "do not run the command when the ledger is unusable (exit 125)")
	f.StringVar(&cfg.Replay, "replay", "all", "what scan replays after an outage: all|latest|none (stored with the task)")
	f.IntVar(&cfg.Retries, "retries", 0, "retry a failed attempt this many times, with exponential backoff")
	durationVar(f, &cfg.RetryDelay, "retry-delay", time.Minute, "delay before the first retry (doubles each time, capped at 1h)")
	f.BoolVar(&cfg.NoCapture, "no-capture", false, "do not keep output tails in the ledger")
	f.BoolVar(&cfg.FailOpen, "fail-open", false, "shared ledger: run the command even when the ledger is unreachable (risks a run on several hosts)")
	f.StringVar(&cfg.Ping, "ping", "", "healthchecks-style monitor URL: URL/start before, URL or URL/<exit code> after (never delays or fails the job; env CATCHUP_PING_URL)")
	f.StringVar(&rf.pingFile, "ping-file", "", "read the --ping URL from this file, keeping it out of ps")
	f.StringVar(&cfg.NotifyCmd, "notify-cmd", "", "run this (sh -c) when the run fails, times out or is interrupted, with CATCHUP_STATUS, CATCHUP_EXIT_CODE, CATCHUP_STDERR_TAIL")
}

// validateRun checks run's flags and fills the slots in cfg; every error is
// a usage error (exit 125). It is a pure function of its inputs.
func validateRun(cfg *catchup.RunConfig, slot, replaySlot string) error {
	if cfg.Task == "" {
		return errors.New("--task is required")
	}
	if err := catchup.ValidateTaskName(cfg.Task); err != nil {
		return err
	}
	if len(cfg.Argv) == 0 {
		return errors.New("no command given: catchup run --task NAME -- COMMAND [ARG...]")
	}
	switch cfg.Replay {
	case "all", "latest", "none":
	default:
		return fmt.Errorf("invalid --replay %q: use all, latest or none", cfg.Replay)
	}
	if cfg.Retries < 0 || cfg.Tolerance < 0 || cfg.Timeout < 0 || cfg.KillAfter < 0 || cfg.RetryDelay < 0 {
		return errors.New("--retries and durations cannot be negative")
	}
	var err error
	if slot != "" {
		if cfg.Slot, err = time.Parse(time.RFC3339, slot); err != nil {
			return fmt.Errorf("invalid --slot %q: want RFC 3339, like 2026-01-02T03:00:00Z", slot)
		}
	}
	if replaySlot != "" {
		if cfg.ReplaySlot, err = time.Parse(time.RFC3339, replaySlot); err != nil {
			return fmt.Errorf("invalid CATCHUP_REPLAY_SLOT %q: want RFC 3339", replaySlot)
		}
	}
	return nil
}

// runRun validates the flags, opens the ledger (a failure is not fatal) and
// hands over to the domain. Every usage error exits 125.
func runRun(c *cobra.Command, g *globals, cfg catchup.RunConfig, slot string) error {
	if err := validateRun(&cfg, slot, os.Getenv("CATCHUP_REPLAY_SLOT")); err != nil {
		return usageErr(c, err)
	}
	if cfg.TZ == "" {
		// cron puts a crontab's CRON_TZ= line in the job's environment:
		// the schedule's zone, when --tz does not say. A bad one is a
		// warning, not a reason to miss the run.
		if tz := os.Getenv("CRON_TZ"); tz != "" {
			if _, err := time.LoadLocation(tz); err == nil {
				cfg.TZ = tz
			} else {
				fmt.Fprintf(os.Stderr, "catchup: ignoring CRON_TZ=%q: not a known time zone\n", tz)
			}
		}
	}
	if err := catchup.CheckSchedule(cfg.Cron, cfg.TZ); err != nil {
		return usageErr(c, err)
	}
	cfg.Dir, _ = os.Getwd()
	path, err := ledgerPath(g)
	if err != nil {
		return &exitStatus{code: catchup.ExitInternal, err: err}
	}
	m, err := newMachine(g, path, false)
	if err != nil {
		return &exitStatus{code: catchup.ExitInternal, err: err}
	}
	ctx := c.Context()
	cfg.Shared = store.IsPostgres(path)
	st, openErr := store.Open(ctx, path)
	if openErr == nil {
		defer st.Close()
	}
	res, err := catchup.Run(ctx, st, openErr, m, cfg)
	if err != nil {
		return &exitStatus{code: catchup.ExitInternal, err: err}
	}
	if res.ExitCode != 0 {
		return &exitStatus{code: res.ExitCode}
	}
	return nil
}

// pingURL is the monitor's URL: --ping, else the first line of --ping-file,
// else CATCHUP_PING_URL; "" for none. A ping file that cannot be read is a
// warning: the monitor never costs the job its run.
func pingURL(flag, file string) string {
	if file == "" {
		if flag != "" {
			return flag
		}
		return os.Getenv("CATCHUP_PING_URL")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "catchup: --ping-file: %v; not pinging\n", err)
		return ""
	}
	u, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(u)
}
