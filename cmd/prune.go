package cmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/store"
)

type pruneConfig struct {
	olderThan time.Duration
	keep      int
	dryRun    bool
}

// pruneFloor is the shortest --older-than: scan's default window. Younger
// history is what tells scan which slots ran; it is never pruned.
const pruneFloor = 7 * 24 * time.Hour

func newPruneCmd(g *globals) *cobra.Command {
	var cfg pruneConfig
	c := &cobra.Command{
		Use:   "prune --older-than DUR [--keep N] [--dry-run]",
		Short: "Delete old run history and reclaim the space",
		Long: `Delete runs that ended more than DUR ago, except the latest run of each task, any
running run, and the newest N runs of each task (--keep). A slot whose successful run
is pruned stays done: pruning never makes scan replay anything. DUR is at least 7d,
scan's default window. The SQLite file is vacuumed afterwards. Exit 0, or 2 on error.`,
		Example: `  catchup prune --older-than 90d --keep 10`,
		Args:    cobra.NoArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return runPrune(c, g, cfg) },
	}
	f := c.Flags()
	durationVar(f, &cfg.olderThan, "older-than", 0, "delete runs that ended longer ago than this (at least 7d; required)")
	f.IntVar(&cfg.keep, "keep", 1, "always keep this many newest runs of each task")
	f.BoolVar(&cfg.dryRun, "dry-run", false, "count what would be deleted, delete nothing")
	return c
}

func runPrune(c *cobra.Command, g *globals, cfg pruneConfig) error {
	switch {
	case cfg.olderThan == 0:
		return usageErr(c, errors.New("--older-than is required, e.g. --older-than 90d"))
	case cfg.olderThan < pruneFloor:
		return usageErr(c, fmt.Errorf("--older-than %s is shorter than 7d, the window scan reads to know which slots ran", formatDuration(cfg.olderThan)))
	case cfg.keep < 0:
		return usageErr(c, errors.New("--keep cannot be negative"))
	}
	st, m, err := openLedger(c.Context(), g, false)
	if err != nil {
		return err
	}
	defer st.Close()
	before := m.Now().Add(-cfg.olderThan)
	res, err := st.Prune(c.Context(), store.PruneRequest{Before: before, Keep: cfg.keep, DryRun: cfg.dryRun})
	if err != nil {
		return failure(err)
	}
	verb := "deleted"
	if cfg.dryRun {
		verb = "would delete"
	}
	_, err = fmt.Fprintf(c.OutOrStdout(), "%s %d runs that ended before %s\n", verb, res.Runs, before.UTC().Format(time.RFC3339))
	return failure(err)
}
