package cmd

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/postgres"
	"github.com/catchup/catchup/store/sqlite"
)

type migrateConfig struct {
	from, to string
}

func newMigrateCmd(g *globals) *cobra.Command {
	var cfg migrateConfig
	c := &cobra.Command{
		Use:   "migrate --from PATH --to postgres://...",
		Short: "Copy a host's SQLite ledger into a shared PostgreSQL ledger",
		Long: `Copy the tasks and runs of a SQLite ledger into a shared PostgreSQL ledger, tagged
with their origin (this host and the file), so that running it again copies nothing
twice. Slots that succeeded here stay done in the shared ledger. Exit 0, or 2 on error.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runMigrate(c, g, cfg) },
	}
	c.Flags().StringVar(&cfg.from, "from", "", "the SQLite ledger to copy (required)")
	c.Flags().StringVar(&cfg.to, "to", "", "the PostgreSQL ledger, postgres://... (required)")
	return c
}

// migratePage is how many runs go over per import transaction.
const migratePage = 1000

func runMigrate(c *cobra.Command, g *globals, cfg migrateConfig) error {
	if cfg.from == "" || cfg.to == "" {
		return usageErr(c, errors.New("--from and --to are both required"))
	}
	if store.IsPostgres(cfg.from) || !store.IsPostgres(cfg.to) {
		return usageErr(c, errors.New("--from is a SQLite file and --to a postgres:// URL"))
	}
	if !fileExists(cfg.from) {
		return failure(fmt.Errorf("no ledger at %s", cfg.from))
	}
	abs, err := filepath.Abs(cfg.from)
	if err != nil {
		return failure(err)
	}
	m, err := newMachine(g, abs, false)
	if err != nil {
		return failure(err)
	}
	ctx := c.Context()
	src, err := sqlite.Open(ctx, abs)
	if err != nil {
		return failure(err)
	}
	defer src.Close()
	dst, err := postgres.Open(ctx, cfg.to)
	if err != nil {
		return failure(err)
	}
	defer dst.Close()
	summaries, err := src.Tasks(ctx)
	if err != nil {
		return failure(err)
	}
	tasks := make([]store.Task, 0, len(summaries))
	for _, s := range summaries {
		tasks = append(tasks, s.Task)
	}
	origin := m.Host + ":" + abs
	var total, imported int
	for after := int64(0); ; {
		runs, err := src.ExportRuns(ctx, after, migratePage)
		if err != nil {
			return failure(err)
		}
		if len(runs) == 0 && after > 0 {
			break
		}
		n, err := dst.Import(ctx, origin, tasks, runs)
		if err != nil {
			return failure(fmt.Errorf("import into %s: %w", store.SafeLocation(cfg.to), err))
		}
		tasks = nil // registered with the first page
		total, imported = total+len(runs), imported+n
		if len(runs) < migratePage {
			break
		}
		after = runs[len(runs)-1].ID
	}
	// Slots whose successful run was pruned here stay done there too.
	pruned, err := src.ExportPrunedSlots(ctx)
	if err != nil {
		return failure(err)
	}
	if err := dst.ImportPrunedSlots(ctx, pruned); err != nil {
		return failure(fmt.Errorf("import into %s: %w", store.SafeLocation(cfg.to), err))
	}
	_, err = fmt.Fprintf(c.OutOrStdout(), "migrated %d tasks and %d runs from %s to %s (%d runs were there already)\n",
		len(summaries), imported, abs, store.SafeLocation(cfg.to), total-imported)
	return failure(err)
}
