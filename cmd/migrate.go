package cmd

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
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
		Long: `Copy the tasks and runs of a SQLite ledger into a shared PostgreSQL ledger,
tagged with their origin (this host and the file), so that running it again
copies nothing twice. Slots that succeeded here stay done in the shared ledger.
The global --db is refused: --from and --to name the two ledgers.
Exit 0, or 2 on error.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runMigrate(c, g, cfg) },
	}
	c.Flags().StringVar(&cfg.from, "from", "", "the SQLite ledger to copy (required)")
	c.Flags().StringVar(&cfg.to, "to", "", "the PostgreSQL ledger, postgres://... (required)")
	return c
}

func runMigrate(c *cobra.Command, g *globals, cfg migrateConfig) error {
	switch {
	case c.Flags().Changed("db"): // accepted, it was ignored
		return usageErr(c, errors.New("--db does not apply to catchup migrate: it copies the ledger --from FILE into the ledger --to postgres://...; drop --db"))
	case givenEmpty(c, "from"):
		return usageErr(c, errors.New("--from is empty: name the SQLite ledger file to copy"))
	case givenEmpty(c, "to"):
		return usageErr(c, errors.New("--to is empty: give the shared ledger's postgres:// URL"))
	case cfg.from == "" || cfg.to == "":
		return usageErr(c, errors.New("--from and --to are both required"))
	}
	// Neither value is quoted: either may hold a password.
	const what = "migrate copies a SQLite ledger (--from FILE) into a shared PostgreSQL one (--to postgres://USER@HOST/DATABASE)"
	if store.IsPostgres(cfg.from) {
		return usageErr(c, errors.New("--from is a postgres:// URL: "+what))
	}
	if !store.IsPostgres(cfg.to) {
		return usageErr(c, errors.New("--to is not a postgres:// URL: "+what))
	}
	if !fileExists(cfg.from) {
		return failure(fmt.Errorf("no ledger at %s: --from takes the SQLite ledger file this host's catchup writes (its --db or CATCHUP_DB; %s)", cfg.from, defaultLedgerSaid()))
	}
	if err := store.RefuseDirectory(cfg.from); err != nil {
		return failure(fmt.Errorf("%w; fix: --from takes the ledger file's path, such as %s", err, filepath.Join(cfg.from, "catchup.db")))
	}
	if err := refuseNotAFile(cfg.from, "--from"); err != nil {
		return failure(err)
	}
	abs, err := filepath.Abs(cfg.from)
	if err != nil {
		return failure(err)
	}
	m, err := newMachine(g, abs, true) // the boot: a dead run it marks ended by this boot's start (deadBy)
	if err != nil {
		return failure(err)
	}
	ctx := c.Context()
	src, err := sqlite.Open(ctx, abs)
	if err != nil {
		return failure(err)
	}
	defer src.Close()
	warnOpened(c.ErrOrStderr(), src)
	dst, err := postgres.Open(ctx, cfg.to)
	if err != nil {
		return failure(err)
	}
	defer dst.Close()
	where := store.SafeLocation(cfg.to)
	done, err := catchup.Migrate(ctx, m, catchup.Migration{From: src, FromPath: abs, To: dst, ToWhere: where})
	if err != nil {
		return failure(err)
	}
	_, err = fmt.Fprintln(c.OutOrStdout(), migrateSummary(done, abs, where))
	return failure(err)
}

// migrateSummary is migrate's one line: what it copied, or, when the target
// held every task and run already (a migrate run again), that it copied
// nothing new (it said "migrated 1 task and 0 runs", as if it had copied
// the task, or lost the runs).
func migrateSummary(done catchup.Migrated, from, to string) string {
	if done.Imported == 0 && done.NewTasks == 0 {
		return fmt.Sprintf("nothing new to migrate from %s to %s: its %s and %s are there already",
			from, to, counted(done.Tasks, "task", "tasks"), counted(done.Runs, "run", "runs"))
	}
	there := done.Runs - done.Imported
	was := "were"
	if there == 1 {
		was = "was"
	}
	return fmt.Sprintf("migrated %s and %s from %s to %s (%s %s there already)",
		counted(done.Tasks, "task", "tasks"), counted(done.Imported, "run", "runs"), from, to, counted(there, "run", "runs"), was)
}

// defaultLedgerSaid names this user's default ledger as its state directory
// (CATCHUP_STATE_DIR, XDG_STATE_HOME, root's) places it; the usual places
// when none can be said (no HOME).
func defaultLedgerSaid() string {
	dir, err := stateDir()
	if err != nil {
		return "by default ~/.local/state/catchup/catchup.db, as root /var/lib/catchup/catchup.db"
	}
	return "by default, for this user here, " + filepath.Join(dir, "catchup.db")
}
