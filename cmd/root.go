// Package cmd holds catchup's cobra commands: each turns its flags into one
// checked request (the only place input is checked), the domain (package
// catchup) does the work, and this package renders its results. It adds the
// "catchup:" prefix to every message.
package cmd

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// Execute runs catchup with args and returns the process exit status.
func Execute(args []string) int {
	ctx, stop := signalContext(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer stop()
	var g globals
	root := newRoot(&g)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var es *exitStatus
	if errors.As(err, &es) {
		if es.err != nil {
			fmt.Fprintf(os.Stderr, "catchup: %s\n", printable(es.err.Error()))
		}
		return es.code
	}
	fmt.Fprintf(os.Stderr, "catchup: %s\n", printable(err.Error()))
	return exitError
}

// NewRootCommand returns catchup's command tree, for generating man pages
// and shell completions (scripts/gendocs).
func NewRootCommand() *cobra.Command { return newRoot(&globals{}) }

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "catchup",
		Short: "Run cron jobs so that no slot is ever lost",
		Long: `catchup sits in front of cron jobs. "catchup run" records every fire in a ledger;
"catchup scan" (at boot and periodically) replays every cron slot that was missed
while the host was down, oldest first, each exactly once, with the slot it stands for.

Environment:
  CATCHUP_DB    the ledger (same as --db)
  CATCHUP_DB_FILE  a file (mode 600) holding the ledger's location, when neither
                --db nor CATCHUP_DB is set: keeps a PostgreSQL password out of ps
                and the environment (PGPASSFILE works too)
  CATCHUP_PING_URL  run's --ping, out of ps (jobs do not get it)
  CATCHUP_NOW   an RFC 3339 time that replaces the clock for every command
  CATCHUP_HOST  the host name recorded on runs (default: the hostname)
  CATCHUP_STATE_DIR  catchup's private directory (default /var/lib/catchup as root,
                else $XDG_STATE_HOME/catchup): the default ledger, and the per-host
                locks of a PostgreSQL ledger

Exit status of ls, history, show, scan: 0 ok; 1 something to report (missed slots
with ls --missed, a failed replay with scan); 2 error. run exits with its command's
status (see catchup run --help).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().Bool("version", false, "print catchup's version (same as catchup version)")
	pf := root.PersistentFlags()
	pf.StringVar(&g.db, "db", "", "ledger: a file, or postgres://... for a ledger shared by several hosts (env CATCHUP_DB; default $XDG_STATE_HOME/catchup/catchup.db, as root /var/lib/catchup/catchup.db)")
	pf.StringVar(&g.host, "host", "", "this host's name, recorded on runs (env CATCHUP_HOST; default the hostname)")
	durationVar(pf, &g.lease, "lease", time.Minute, "shared ledger: a running run whose heartbeat is older than this is interrupted (heartbeats every lease/6, at most 10s)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr(c, err)
	})
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if g.lease <= 0 {
			return usageErr(c, errors.New("--lease must be positive: it is how long a silent host's run stays alive"))
		}
		return nil
	}
	root.AddCommand(
		newRunCmd(g),
		newLsCmd(g),
		newHistoryCmd(g),
		newShowCmd(g),
		newScanCmd(g),
		newBackfillCmd(g),
		newDaemonCmd(g),
		newProgressCmd(g),
		newMetricsCmd(g),
		newPruneCmd(g),
		newBackupCmd(g),
		newMigrateCmd(g),
		newExplainCmd(g),
		newResetClockCmd(g),
		newForgetCmd(g),
		newPauseCmd(g),
		newResumeCmd(g),
		newVersionCmd(),
		newNextCmd(),
		newCrontabCmd(),
		newCalendarCmd(g),
	)
	return root
}
