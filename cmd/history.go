package cmd

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

type historyConfig struct {
	output string
	since  time.Duration
	filter store.HistoryFilter
}

func newHistoryCmd(g *globals) *cobra.Command {
	var cfg historyConfig
	c := &cobra.Command{
		Use:                   "history [TASK] [--limit N] [--status S] [--since DUR] [-o FORMAT]",
		DisableFlagsInUseLine: true, // its Use lists its flags; with " [flags]" it passed 80 columns
		Annotations:           map[string]string{readsOnly: "true"},
		Short:                 "Show recorded runs, newest first",
		Long: `Show recorded runs, newest first: every task's, or TASK's (catchup show ID shows
one in full). Exit 0 (also when no run matches), or 2 on error (an unknown TASK,
a bad flag); 128+N when stopped by signal N.`,
		Args: wantArgs(0, 1, "at most one TASK"),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 && args[0] == "" {
				return usageErr(c, errors.New("empty TASK: name a task (catchup ls lists them), or give no TASK for every task's runs"))
			}
			if len(args) == 1 {
				cfg.filter.Task = args[0]
			}
			return runHistory(c, g, cfg)
		},
	}
	c.ValidArgsFunction = completeFirstTask(g)
	f := c.Flags()
	f.StringVarP(&cfg.output, "output", "o", "table", "output format: table|wide|json")
	intVar(f, &cfg.filter.Limit, "limit", 20, "show at most N runs; 0 shows the default number")
	durationVar(f, &cfg.since, "since", 0, "only runs started within this long before now (90m, 7d; not 0; default: every run)")
	f.StringVar(&cfg.filter.Status, "status", "", "only runs with this status: running, succeeded, failed, timeout, interrupted, skipped, expired or paused")
	return c
}

func runHistory(c *cobra.Command, g *globals, cfg historyConfig) error {
	if err := checkOutput(cfg.output, "table", "wide", "json"); err != nil {
		return usageErr(c, err)
	}
	if cfg.filter.Status == "" && c.Flags().Changed("status") {
		// Not "no filter": an empty value is a variable left unset.
		return usageErr(c, errors.New("--status '' names no status: use running, succeeded, failed, timeout, interrupted, skipped, expired or paused, or leave --status out for every run"))
	}
	if err := checkStatus(cfg.filter.Status); err != nil {
		return usageErr(c, err)
	}
	if cfg.filter.Limit < 0 {
		// Not "the default": a negative count is a typo or a script's
		// arithmetic gone wrong, and was taken silently for 20.
		return usageErr(c, fmt.Errorf("--limit %d cannot be negative: give how many runs to show, such as --limit 50, or leave --limit out for the newest 20", cfg.filter.Limit))
	}
	if cfg.since < 0 {
		return usageErr(c, fmt.Errorf("--since must not be negative"))
	}
	if cfg.since == 0 && c.Flags().Changed("since") {
		// Not "no filter": 0 is a value, and it keeps nothing.
		return usageErr(c, errors.New("--since 0 keeps no run (only runs started within 0 before now): give how far back to look, such as 90m or 7d, or leave --since out for every run"))
	}
	st, m, err := openReadingLedger(c.Context(), g, true) // the boot: a dead run of an earlier one ended by its start
	if err != nil {
		return err
	}
	defer st.Close()
	if cfg.since > 0 {
		cfg.filter.Since = m.Now().Add(-cfg.since)
	}
	runs, err := catchup.History(c.Context(), st, m, cfg.filter)
	if err != nil {
		return failure(err)
	}
	out := c.OutOrStdout()
	if cfg.output == "json" {
		rows := make([]runJSON, 0, len(runs))
		for _, r := range runs {
			rows = append(rows, toRunJSON(r, m.Now()))
		}
		return failure(renderJSON(out, rows))
	}
	zones, err := catchup.RunZones(c.Context(), st, m, runs)
	if err != nil {
		return failure(err)
	}
	header, table := historyTable(runs, zones, cfg.output == "wide")
	if err := renderTable(out, header, table); err != nil {
		return failure(err)
	}
	return failure(writeNotes(out, runs, m.Now()))
}

// writeNotes says, under history's table, what the table's STATUS alone
// does not tell: which runs' outcomes came after they were taken for dead
// (their slots may have run twice), and which running retries only wait
// out their delay (their commands have not started).
func writeNotes(w io.Writer, runs []store.Run, now time.Time) error {
	if slices.ContainsFunc(runs, catchup.Noted) {
		if _, err := fmt.Fprintln(w, "note: a run with ID - fired while the ledger could not be reached, which holds no record of it yet: noted on this host, the next scan records it"); err != nil {
			return err
		}
	}
	for _, r := range runs {
		if catchup.WaitsRetryDelay(r, now) {
			if _, err := fmt.Fprintf(w, "note: run %d (%s) is %s\n", r.ID, r.Status, catchup.RetryDelayWait); err != nil {
				return err
			}
		}
		if overdue := catchup.RetryStartOverdue(r, now); overdue != "" {
			if _, err := fmt.Fprintf(w, "note: run %d (%s) was %s\n", r.ID, r.Status, overdue); err != nil {
				return err
			}
		}
		if note := catchup.LateOutcome(r); note != "" {
			if _, err := fmt.Fprintf(w, "note: run %d (%s) ended after it was taken for dead (%s): its slot may have run twice\n",
				r.ID, r.Status, strings.TrimPrefix(note, store.LateOutcomeNote)); err != nil {
				return err
			}
		}
	}
	return nil
}

// runIDText is run r's id in a table: "-" for a noted fire, which has none
// yet (catchup.Noted).
func runIDText(r store.Run) string {
	if catchup.Noted(r) {
		return "-"
	}
	return strconv.FormatInt(r.ID, 10)
}

// historyTable is history's table: ID, TASK, SLOT, TRIGGER, STATUS,
// DURATION and, when the runs come from several hosts, HOST; wide adds EXIT
// and STARTED and always shows HOST. A run's times are in its task's zone
// (zones, catchup.RunZones), as ls shows them.
func historyTable(runs []store.Run, zones map[string]*time.Location, wide bool) ([]string, [][]string) {
	hosts := map[string]bool{}
	var table [][]string
	for _, r := range runs {
		hosts[r.Host] = true
		loc := runZone(zones, r.Task)
		table = append(table, []string{runIDText(r), r.Task, tableTime(r.Slot, loc), r.Trigger,
			r.Status, exitText(r.ExitCode), tableTime(r.StartedAt, loc), durationText(r, false), dash(r.Host)})
	}
	header := []string{"ID", "TASK", "SLOT", "TRIGGER", "STATUS", "EXIT", "STARTED", "DURATION", "HOST"}
	keep := []bool{true, true, true, true, true, wide, wide, true, wide || len(hosts) > 1}
	return pickColumns(header, table, keep)
}

func checkStatus(s string) error {
	switch s {
	case "", store.StatusRunning, store.StatusSucceeded, store.StatusFailed, store.StatusTimeout,
		store.StatusInterrupted, store.StatusSkipped, store.StatusExpired, store.StatusPaused:
		return nil
	}
	return fmt.Errorf("invalid --status %s: use running, succeeded, failed, timeout, interrupted, skipped, expired or paused", quotedValue(s))
}
