package scripttest

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/catchup/catchup/internal/pgtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// Halves is how many test binaries run the scenarios on PostgreSQL
// (pgscripts/first and pgscripts/second): on PostgreSQL the scenarios
// take longer than on SQLite, and one binary for all of them ran out of
// go test's ten-minute limit per package on a loaded machine.
const Halves = 2

// EnvAll, set to "all", runs every scenario on PostgreSQL, not only those
// of CoverList (scripts/stress-tests.sh and scripts/pg-cover.sh set it).
const EnvAll = "CATCHUP_TEST_PG_SCRIPTS"

// EnvCoverDir, when set, gives each scenario's catchup processes a
// GOCOVERDIR of their own under it, named after the scenario: with a test
// binary built with -cover, scripts/pg-cover.sh reads from them which
// scenarios run which code of the PostgreSQL backend.
const EnvCoverDir = "CATCHUP_TEST_SCRIPT_COVERDIR"

// CoverList names the file, beside the scenarios' directory, listing the
// scenarios go test runs on PostgreSQL (NAME), a set that runs each block
// of the ledger's packages that the whole set runs there, and those it
// leaves out (-NAME); a scenario named in neither is newer than the list
// and runs there too (scripts/pg-cover.sh writes and checks it). Every
// scenario runs on SQLite in the root package; all of them run on
// PostgreSQL with EnvAll=all.
const CoverList = "postgres-cover.txt"

// RunPostgres runs one half of the scenarios in dir (every other file, in
// name order, starting at half) on a shared PostgreSQL ledger, each
// script in its own schema: those of CoverList, or all of them with
// EnvAll=all or when -run names scenarios (TestScriptsPostgres/NAME). It
// skips t without a server, or under -short.
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
	if !allOnPostgres() {
		files = covering(t, filepath.Join(dir, "..", CoverList), files)
	}
	var mine []string
	for i, f := range files {
		if i%Halves == half {
			mine = append(mine, f)
		}
	}
	if len(mine) == 0 {
		t.Fatalf("no scenarios in %s for half %d", dir, half)
	}
	coverDir := os.Getenv(EnvCoverDir)
	p := Params("", "postgres", func(env *testscript.Env) error {
		db, err := pgtest.Schema(env.T().(testing.TB), dsn)
		if err != nil {
			return err
		}
		env.Setenv("CATCHUP_DB", db)
		if coverDir != "" {
			d := filepath.Join(coverDir, strings.TrimPrefix(filepath.Base(env.WorkDir), "script-"))
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			env.Setenv("GOCOVERDIR", d)
		}
		return nil
	})
	p.Files = mine
	testscript.Run(t, p)
}

// allOnPostgres says whether every scenario runs on PostgreSQL: EnvAll
// asks for it, or -run picks scenarios by name.
func allOnPostgres() bool {
	if os.Getenv(EnvAll) == "all" {
		return true
	}
	run := flag.Lookup("test.run")
	return run != nil && strings.Contains(run.Value.String(), "/")
}

// covering keeps the files whose scenario CoverList names to run, and
// those it does not name at all (newer than the list). A name there with
// no scenario fails t: the list is stale (scripts/pg-cover.sh --write
// makes it anew).
func covering(t *testing.T, list string, files []string) []string {
	f, err := os.Open(list)
	if err != nil {
		t.Fatalf("the list of scenarios run on PostgreSQL: %v (scripts/pg-cover.sh --write makes it)", err)
	}
	defer f.Close()
	named := map[string]bool{} // name -> run it
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, left := strings.CutPrefix(line, "-")
		named[name] = !left
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		if run, ok := named[name]; run || !ok {
			kept = append(kept, file)
		}
		delete(named, name)
	}
	if len(named) > 0 {
		var gone []string
		for name := range named {
			gone = append(gone, name)
		}
		sort.Strings(gone)
		t.Fatalf("%s names scenarios that are not in testdata/script: %s (scripts/pg-cover.sh --write makes it anew)", list, strings.Join(gone, ", "))
	}
	return kept
}
