package second

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/catchup/catchup/cmd"
	"github.com/catchup/catchup/internal/pgtest"
	"github.com/catchup/catchup/internal/scripttest"
	"github.com/catchup/catchup/internal/testflags"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run this test binary as the `catchup` command
// (what main.go does), end to end, in its own process.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) != "catchup" { // not a script's `catchup`, where it would be output
		pgtest.Notice("github.com/catchup/catchup/pgscripts/second")
		testflags.DefaultParallel(scripttest.PostgresScenariosAtOnce)
	}
	testscript.Main(m, map[string]func(){"catchup": func() { os.Exit(cmd.Execute(os.Args[1:], os.Exit)) }})
}

// TestScriptsPostgres runs the second half of the scenarios of
// testdata/script on a shared PostgreSQL ledger, each in its own schema
// (scripttest.RunPostgres). Scripts about the SQLite file itself start
// with `[postgres] skip`.
func TestScriptsPostgres(t *testing.T) {
	scripttest.RunPostgres(t, filepath.Join("..", "..", "testdata", "script"), 1)
}
