package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/store"
)

func newBackupCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "backup PATH",
		Short: "Copy the SQLite ledger, its WAL included, to a new file",
		Long: `Writes a consistent snapshot of the ledger to PATH, a new file (mode 0600),
while runs go on. The SQLite ledger keeps its write-ahead log (the -wal file
beside it) between runs, so the .db file alone may lack the latest runs: copy
the ledger with backup, not with cp.

To restore, with no catchup running: move the backup to the ledger's path and
delete the old -wal and -shm files beside it (a stale -wal would be applied to
the restored file).

PATH is a file, never standard output: "-" is refused (./- names a file of that
name). A PostgreSQL ledger is backed up with pg_dump. Exit 0, or 2 on error.`,
		Example: `  catchup backup /var/backups/catchup-$(date +%F).db`,
		Args:    wantArgs(1, 1, "one PATH (the file to write the copy to)"),
		RunE: func(c *cobra.Command, args []string) error {
			dest := args[0]
			if dest == "" {
				return usageErr(c, errors.New("empty PATH: name the new file to write the copy to"))
			}
			if dest == "-" { // standard output to most tools; a file named - is ./-
				return usageErr(c, errors.New("backup writes a file, not standard output: name the new file (like /var/backups/catchup.db, or ./- for a file named -)"))
			}
			if _, err := os.Lstat(dest); err == nil {
				return usageErr(c, fmt.Errorf("%s already exists: name a new file", dest))
			}
			// A SQLite ledger's copy: a PostgreSQL one is refused as such below.
			switch fi, err := os.Stat(filepath.Dir(dest)); {
			case sharedLedger(g):
			case errors.Is(err, os.ErrNotExist):
				return usageErr(c, fmt.Errorf("cannot write %s: its directory %s does not exist; fix: create it, or name a file in a directory that exists", dest, filepath.Dir(dest)))
			case err == nil && !fi.IsDir():
				return usageErr(c, fmt.Errorf("cannot write %s: %s is not a directory", dest, filepath.Dir(dest)))
			}
			st, _, err := openReadingLedger(c.Context(), g, false) // a copy reads it only: a read-only ledger is backed up
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Backup(c.Context(), dest); err != nil {
				return failure(err)
			}
			fmt.Fprintf(c.OutOrStdout(), "ledger backed up to %s\n", dest)
			return nil
		},
	}
}

// sharedLedger reports whether the ledger given is PostgreSQL (a location
// that does not parse is said by the open).
func sharedLedger(g *globals) bool {
	path, err := ledgerPath(g)
	return err == nil && store.IsPostgres(path)
}
