package scripttest

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/catchup/catchup/internal/pgtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// Halves is how many test binaries run the scenarios on PostgreSQL
// (pgscripts/first and pgscripts/second): on PostgreSQL the scenarios
// take longer than on SQLite, and one binary for all of them ran out of
// go test's ten-minute limit per package on a loaded machine.
const Halves = 2

// RunPostgres runs one half of the scenarios in dir (every other file, in
// name order, starting at half) on a shared PostgreSQL ledger, each
// script in its own schema. It skips t without a server, or under -short.
func RunPostgres(t *testing.T, dir string, half int) {
	dsn := pgtest.DSN(t)
	if testing.Short() {
		t.Skip("-short: the scripts run on PostgreSQL in the full run")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var mine []string
	for i, f := range files {
		if i%Halves == half {
			mine = append(mine, f)
		}
	}
	if len(mine) == 0 {
		t.Fatalf("no scenarios in %s for half %d", dir, half)
	}
	p := Params("", "postgres", func(env *testscript.Env) error {
		db, err := pgtest.Schema(env.T().(testing.TB), dsn)
		if err != nil {
			return err
		}
		env.Setenv("CATCHUP_DB", db)
		return nil
	})
	p.Files = mine
	testscript.Run(t, p)
}
