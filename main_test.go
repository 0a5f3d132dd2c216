package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/catchup/catchup/internal/scripttest"
	"github.com/catchup/catchup/internal/testflags"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run this test binary as the real `catchup`
// command, end to end, in its own process. The same scenarios run on
// PostgreSQL in packages pgscripts/first and pgscripts/second, half each;
// the Go tests that drive real catchup processes (faults, load, fleets)
// live in package e2e.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) != "catchup" { // not a script's `catchup`, which parses no test flags
		testflags.DefaultParallel(scripttest.ScenariosAtOnce)
	}
	testscript.Main(m, map[string]func(){"catchup": main})
}

// TestScripts runs the CLI scenarios in testdata/script, one per file, on
// a SQLite ledger.
func TestScripts(t *testing.T) {
	dir := filepath.Join("testdata", "script")
	testscript.Run(t, scripttest.Params(dir, "sqlite", func(env *testscript.Env) error {
		env.Setenv("CATCHUP_DB", filepath.Join(env.WorkDir, "state", "catchup.db"))
		return nil
	}))
}
