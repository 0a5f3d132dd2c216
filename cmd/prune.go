package cmd

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
)

func newPruneCmd(g *globals) *cobra.Command {
	var req catchup.PruneRequest
	c := &cobra.Command{
		Use:                   "prune --older-than DUR [--keep N] [--dry-run] [--notify-cmd CMD]",
		DisableFlagsInUseLine: true, // its Use lists its flags; with " [flags]" it passed 80 columns
		Short:                 "Delete old run history and reclaim the space",
		Long: `Delete runs that ended more than DUR ago, except the latest run of each task
(the one ls shows) and the run holding its LAST SLOT, any running run, and the
newest N runs of each task (--keep; a duplicate fire's record is not counted
among them). The newest N are also counted leaving out the paused records a
pause's fires left: a long pause never pushes out the runs ls shows once it is
over. A slot whose successful run is pruned stays done: pruning never makes scan
replay anything. A missed slot before the cut that scan would not replay is
first recorded as scan would (expired when older than its task's catch-up
window, paused in the task's pause), once (a slot a scan recorded expired
meanwhile is not recorded again), and a task with slots recorded expired gets
scan's alert (--notify-cmd, else the task's own); the alerts that scans of this
host killed before their alert ran still owe are sent first, as the next scan
would. A missed slot scan would replay makes prune refuse: run catchup scan
first. A task scan passes by (a registered schedule that does not parse, a
ledger holding a slot later than now) is left whole, its runs and its watermark,
with a warning on stderr naming it and the fix: prune cannot tell which of its
slots were missed. A task whose failed slot before the cut is within its
catch-up window (scan --retry-failed still runs it) keeps its runs from the
earliest such slot on, and its watermark below it; its earlier runs go. DUR is
at least 7d, scan's default window. The SQLite file is vacuumed afterwards.
Exit 0, or 2 on error.`,
		Example: `  catchup prune --older-than 90d --keep 10`,
		Args:    noArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return runPrune(c, g, req) },
	}
	f := c.Flags()
	durationVar(f, &req.OlderThan, "older-than", 0, "delete runs that ended longer ago than this (at least 7d; required)")
	intVar(f, &req.Keep, "keep", 1, "always keep this many newest runs of each task (paused records never push out runs that ran)")
	f.BoolVar(&req.DryRun, "dry-run", false, "count what would be deleted, delete nothing")
	f.StringVar(&req.NotifyCmd, "notify-cmd", "", "run this (sh -c) for each task prune records missed slots of expired, as scan's alert: CATCHUP_TASK, CATCHUP_STATUS=missed, CATCHUP_MISSED, CATCHUP_MISSED_SLOTS, CATCHUP_MISSED_CAUSES, CATCHUP_EXPIRED, CATCHUP_EXPIRED_SLOTS (a list over 200 slots keeps its first and last 100 around \"...\"; default: the task's own --notify-cmd)")
	return c
}

func runPrune(c *cobra.Command, g *globals, req catchup.PruneRequest) error {
	switch {
	case !c.Flags().Changed("older-than"): // 0s given is a value, shorter than 7d
		return usageErr(c, errors.New("--older-than is required, e.g. --older-than 90d"))
	case req.OlderThan < 0:
		return usageErr(c, fmt.Errorf("--older-than cannot be negative: give an age of at least %s, such as 90d", catchup.FormatDuration(catchup.MinPruneAge)))
	case req.OlderThan < catchup.MinPruneAge:
		return usageErr(c, fmt.Errorf("--older-than %s is shorter than %s, the window scan reads to know which slots ran",
			catchup.FormatDuration(req.OlderThan), catchup.FormatDuration(catchup.MinPruneAge)))
	case req.Keep < 0:
		return usageErr(c, errors.New("--keep cannot be negative"))
	case givenEmpty(c, "notify-cmd"):
		return usageErr(c, errEmptyNotify)
	case givenBlank(c, "notify-cmd"):
		return usageErr(c, errBlankNotify)
	}
	opener := openExistingLedger
	if req.DryRun {
		opener = openReadingLedger // a dry run reads it only: a read-only ledger says what prune would do
	}
	st, m, err := opener(c.Context(), g, false)
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := catchup.Prune(c.Context(), st, m, req)
	for _, l := range res.Left {
		m.Notice("warning: task %s left whole (its runs and its watermark): %s", l.Task, l.Why)
	}
	if perr := printRecorded(c.OutOrStdout(), res.Recorded, req.DryRun); err == nil {
		err = perr
	}
	if perr := printOwed(c.OutOrStdout(), res.Owed); err == nil {
		err = perr
	}
	if err != nil {
		return failure(err) // it names what was deleted, if anything was
	}
	verb := "deleted"
	if req.DryRun {
		verb = "would delete"
	}
	_, err = fmt.Fprintf(c.OutOrStdout(), "%s %s that ended before %s\n", verb, counted(int(res.Runs), "run", "runs"), res.Before.UTC().Format(time.RFC3339))
	return failure(err)
}

// printRecorded says, per task, which missed slots before the cut prune
// recorded as scan would (would record, in a dry run).
func printRecorded(w io.Writer, recs []catchup.PruneRecorded, dry bool) error {
	verb := "recorded"
	if dry {
		verb = "would record"
	}
	for _, r := range recs {
		if r.Expired > 0 {
			if _, err := fmt.Fprintf(w, "%s: %s %s expired (older than its catch-up window, %s), as scan would\n",
				r.Task, verb, counted(r.Expired, "missed slot", "missed slots"), catchup.FormatDuration(r.Window)); err != nil {
				return err
			}
		}
		if r.Paused > 0 {
			if _, err := fmt.Fprintf(w, "%s: %s %s of its pause paused, as scan would\n", r.Task, verb, counted(r.Paused, "slot", "slots")); err != nil {
				return err
			}
		}
	}
	return nil
}

// printOwed says, per task, from which failed slot on prune kept its runs:
// that slot, within the task's catch-up window, is still owed a run.
func printOwed(w io.Writer, owed []catchup.PruneOwed) error {
	for _, o := range owed {
		if _, err := fmt.Fprintf(w, "%s: kept its runs from %s on: that slot failed and is within its catch-up window (%s), "+
			"where catchup scan --retry-failed --task %s and catchup backfill --only failed still run it\n",
			o.Task, o.Slot.UTC().Format(time.RFC3339), catchup.FormatDuration(o.Window), o.Task); err != nil {
			return err
		}
	}
	return nil
}
