package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
)

type metricsConfig struct {
	textfile string
	rule     catchup.MissedRule
}

func newMetricsCmd(g *globals) *cobra.Command {
	var cfg metricsConfig
	c := &cobra.Command{
		Use:   "metrics [--textfile PATH]",
		Short: "Print Prometheus metrics per task (or a node_exporter textfile)",
		Long: `Print the Prometheus text exposition of every task: its last run's start and end
times, status, duration and exit code, its runs by status, its missed slots now
(scan's rule) by cause, its expired slots by reason, how far the ledger holds it
ahead of the clock, how long a running job has run, and whether it is retired
(a retired task, which runs no more, has no last run status to alert on). With
--textfile the metrics are written to PATH atomically (a temporary file renamed
over it), for node_exporter's --collector.textfile.directory; run it from cron
or a timer. Exit 0, or 2 on error.`,
		Example: `  # crontab; node_exporter --collector.textfile.directory=/var/lib/node_exporter
  * * * * * catchup metrics --textfile /var/lib/node_exporter/catchup.prom`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runMetrics(c, g, cfg) },
	}
	c.Flags().StringVar(&cfg.textfile, "textfile", "", "write to this file atomically instead of stdout (named *.prom: node_exporter's textfile collector reads no other)")
	addMissedFlags(c, &cfg.rule)
	hideMaxAge(c)
	return c
}

func runMetrics(c *cobra.Command, g *globals, cfg metricsConfig) error {
	if err := refuseFlags(c, "does not apply to metrics: catchup_missed_slots counts every slot scan would deal with, replayed or recorded expired",
		"max-age"); err != nil {
		return usageErr(c, err)
	}
	if err := checkRule(c, &cfg.rule); err != nil {
		return usageErr(c, err)
	}
	if err := checkTextfile(c, cfg.textfile); err != nil {
		return usageErr(c, err)
	}
	if cfg.textfile == "" {
		g.readOnly() // a --textfile is written whole, or not at all
	}
	st, m, err := openReadingLedger(c.Context(), g, true)
	if err != nil {
		return err
	}
	defer st.Close()
	tasks, err := catchup.Metrics(c.Context(), st, m, cfg.rule)
	if err != nil {
		return failure(err)
	}
	families := metricFamilies(tasks)
	if cfg.textfile != "" {
		return failure(writeTextfile(cfg.textfile, families))
	}
	return failure(writeMetrics(c.OutOrStdout(), families))
}

// checkTextfile checks --textfile before the ledger is read: a file path
// (given, not a directory) in a directory that exists.
func checkTextfile(c *cobra.Command, path string) error {
	const fix = "name a file in node_exporter's --collector.textfile.directory, like /var/lib/node_exporter/textfile/catchup.prom"
	switch fi, err := os.Stat(path); {
	case !c.Flags().Changed("textfile"):
		return nil
	case path == "":
		return errors.New("--textfile needs a path: " + fix)
	case err == nil && fi.IsDir():
		return fmt.Errorf("--textfile %s is a directory: %s", path, fix)
	case !strings.HasSuffix(path, ".prom"):
		// Written, but never read: the collector skips other names.
		return fmt.Errorf("--textfile %s: node_exporter's textfile collector reads only files named *.prom: name it %s, in node_exporter's --collector.textfile.directory",
			path, promName(path))
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--textfile %s: its directory %s does not exist: %s", path, filepath.Dir(path), fix)
	}
	return nil
}

// promName is path renamed for the textfile collector: its extension
// replaced by .prom (catchup.txt: catchup.prom; catchup.prom.tmp:
// catchup.prom).
func promName(path string) string {
	base := strings.TrimSuffix(path, filepath.Ext(path))
	switch {
	case base == "" || strings.HasSuffix(base, "/"): // a name that is all extension (.txt)
		return path + ".prom"
	case strings.HasSuffix(base, ".prom"):
		return base
	}
	return base + ".prom"
}
