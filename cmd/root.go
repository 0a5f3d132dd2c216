// Package cmd holds catchup's cobra commands: each turns its flags into one
// checked request (the only place input is checked), the domain (package
// catchup) does the work, and this package renders its results. It adds the
// "catchup:" prefix to every message.
package cmd

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/internal/hangup"
)

// Execute runs catchup with args and returns the process exit status.
// exit ends the process (os.Exit, main's): a command that only reads is
// ended through it by a stop signal (see signalContext).
func Execute(args []string, exit func(int)) int {
	guardLocalZone()                           // before anything reads a local time
	hupReloads.Store(hangup.MayBeDaemon(args)) // newRoot knows for sure
	ctx, caught, stopWith, endOnStop := signalContext(exit, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	g := globals{signalsCaught: caught, stopWith: stopWith, endOnStop: endOnStop}
	root := newRoot(&g, args)
	completionShells(root, args)
	helpTopics(root)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var es *exitStatus
	switch {
	case err == nil:
	case errors.As(err, &es):
		if es.err != nil {
			fmt.Fprintf(os.Stderr, "catchup: %s\n", printable(es.err.Error()))
		}
	default:
		msg := err.Error()
		if strings.HasPrefix(msg, "unknown command") { // cobra's: its suggestions on lines of their own
			msg = unknownCommand(msg)
		}
		fmt.Fprintf(os.Stderr, "catchup: %s\n", printable(msg))
	}
	return exitCodeOf(err)
}

// NewRootCommand returns catchup's command tree, for generating man pages
// and shell completions (scripts/gendocs).
func NewRootCommand() *cobra.Command { return newRoot(&globals{}, nil) }

// newRoot builds the root command with only the subcommand that args
// invoke, or with all of them when args name none (see commandName).
func newRoot(g *globals, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "catchup",
		Short: "Run cron jobs so that no slot is ever lost",
		Long: `catchup sits in front of cron jobs. "catchup run" records every fire in a
ledger; "catchup scan" (at boot and periodically) replays every cron slot that
was missed while the host was down, oldest first, each exactly once, with the
slot it stands for.

Environment:
  CATCHUP_DB    the ledger (same as --db)
  CATCHUP_DB_FILE  a file (mode 600) holding the ledger's location, when neither
                --db nor CATCHUP_DB is set: keeps a PostgreSQL password out of
                ps and the environment (PGPASSFILE works too)
  CATCHUP_PING_URL  run's --ping, out of ps (jobs do not get it)
  CATCHUP_NOW   an RFC 3339 time that replaces the clock for every command
  CATCHUP_HOST  the host name recorded on runs (default: the hostname)
  CATCHUP_STATE_DIR  catchup's private directory (default /var/lib/catchup as
                root, else $XDG_STATE_HOME/catchup): the default ledger, and the
                per-host locks of a PostgreSQL ledger

Exit status of ls, history, show, scan: 0 ok; 1 something to report (missed
slots with ls --missed, a failed replay with scan); 2 error. run exits with its
command's status (see catchup run --help).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Not cobra's Version: printing it as a bare line takes a version
		// template, which links text/template's executor and with it every
		// method of every linked type (TestLinkerKeepsDroppingUnusedMethods).
		RunE: func(c *cobra.Command, _ []string) error {
			if v, _ := c.Flags().GetBool("version"); v {
				_, err := fmt.Fprintln(c.OutOrStdout(), version())
				return err
			}
			return c.Help()
		},
	}
	root.Flags().Bool("version", false, "print catchup's version (same as catchup version)")
	pf := root.PersistentFlags()
	pf.StringVar(&g.db, "db", "", "ledger: a file, or postgres://... for a ledger shared by several hosts (env CATCHUP_DB; default $XDG_STATE_HOME/catchup/catchup.db, as root /var/lib/catchup/catchup.db)")
	pf.StringVar(&g.host, "host", "", "this host's name, recorded on runs (env CATCHUP_HOST; default the hostname)")
	durationVar(pf, &g.lease, "lease", time.Minute, "shared ledger: a running run whose heartbeat is older than this is interrupted (heartbeats every lease/6, at most 10s)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr(c, tooLong(unknownShorthand(taskFlagOfAnArgument(c, negativeRunID(c, flagGivenTwice(c, err))))))
	})
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if !c.HasParent() {
			return nil // --version or the help: no ledger, no lease
		}
		if c.Name() != "run" { // run waits once its ledger is open (runRun)
			g.awaitSignals()
		}
		if c.Annotations[readsOnly] != "" {
			g.readOnly()
		}
		if c.Name() != "run" && dbGivenEmpty(c, g) { // run runs its command unrecorded (runRun)
			return usageErr(c, errEmptyDB)
		}
		if givenEmpty(c, "host") && c.Annotations[opensNoLedger] == "" { // else refused as not applying
			return usageErr(c, errEmptyHost)
		}
		if g.lease <= 0 && c.Annotations[opensNoLedger] == "" {
			return usageErr(c, errors.New("--lease must be positive: it is how long a silent host's run stays alive"))
		}
		return nil
	}
	only := commandName(pf, args)
	if args != nil && only != "daemon" {
		hupReloads.Store(false)
		hangup.Release() // caught from init in case it was the daemon: not this command's to keep
	}
	for _, sub := range subcommands {
		if only == "" || sub.name == only {
			root.AddCommand(sub.build(g))
		}
	}
	flagsOnce(root)
	root.SetUsageFunc(usage)
	if only != "" {
		// Not asked for either: cobra would build it and its four shell subcommands.
		root.CompletionOptions.DisableDefaultCmd = true
	}
	return root
}

// subcommands are catchup's commands by name (an alias gets the whole tree). Building
// the whole tree with every flag is a measurable part of catchup's start,
// which every cron fire pays (docs/performance.md), so Execute builds only
// the command it runs.
var subcommands = []struct {
	name  string
	build func(*globals) *cobra.Command
}{
	{"run", newRunCmd},
	{"ls", newLsCmd},
	{"history", newHistoryCmd},
	{"show", newShowCmd},
	{"scan", newScanCmd},
	{"backfill", newBackfillCmd},
	{"daemon", newDaemonCmd},
	{"progress", newProgressCmd},
	{"metrics", newMetricsCmd},
	{"prune", newPruneCmd},
	{"backup", newBackupCmd},
	{"migrate", newMigrateCmd},
	{"explain", newExplainCmd},
	{"reset-clock", newResetClockCmd},
	{"forget", newForgetCmd},
	{"pause", newPauseCmd},
	{"resume", newResumeCmd},
	{"version", func(*globals) *cobra.Command { return newVersionCmd() }},
	{"next", func(*globals) *cobra.Command { return newNextCmd() }},
	{"crontab", func(*globals) *cobra.Command { return newCrontabCmd() }},
	{"calendar", newCalendarCmd},
}

// commandName is the subcommand args invoke, or "" when the whole tree is
// needed: no subcommand (help, --version), help, completion, __complete, an
// alias, or a name catchup does not know (cobra suggests the close ones).
// The global flags may come first (catchup --db X run ...); any other flag
// there is left to the whole tree to refuse.
func commandName(global *pflag.FlagSet, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			for _, sub := range subcommands {
				if sub.name == a {
					return a
				}
			}
			return ""
		}
		name, _, inline := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		f := global.Lookup(name)
		if !strings.HasPrefix(a, "--") || f == nil {
			return ""
		}
		if !inline && f.NoOptDefVal == "" {
			i++ // its value
		}
	}
	return ""
}

// errEmptyDB is the error of an empty --db: "--db $LEDGER" with LEDGER
// unset, where the default ledger would quietly take runs meant for
// another.
var errEmptyDB = errors.New("--db is empty: name the ledger (a file, or postgres://...), or drop --db for the default one")

// dbGivenEmpty reports whether --db was given, empty.
func dbGivenEmpty(c *cobra.Command, g *globals) bool {
	f := c.Flags().Lookup("db")
	return f != nil && f.Changed && g.db == ""
}

// unknownCommand is cobra's message for an unknown command on one line:
// its suggestions ("Did you mean this?", a line each) joined, and where
// the commands are listed. A word with a secret's shape taken for the
// command (catchup PGPASSWORD=X ...) is quoted masked.
func unknownCommand(msg string) string {
	first, rest, _ := strings.Cut(msg, "\n")
	if q := unknownWord().FindStringSubmatch(first); q != nil {
		if word, err := strconv.Unquote(q[1]); err == nil {
			first = redact.ValueIn(first, word)
		}
	}
	var close []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasSuffix(l, "?") {
			close = append(close, l)
		}
	}
	if len(close) > 0 {
		first += "; did you mean " + strings.Join(close, " or ") + "?"
	}
	return first + " (catchup --help lists the commands)"
}

// unknownWord is the word cobra quotes in its unknown command message.
var unknownWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^unknown command ("(?:[^"\\]|\\.)*")`)
})
