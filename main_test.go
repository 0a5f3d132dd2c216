package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run this test binary as the real `catchup`
// command, end to end, in its own process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"catchup": main})
}

// TestScripts runs the CLI scenarios in testdata/script, one per file.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("CATCHUP_DB", filepath.Join(env.WorkDir, "state", "catchup.db"))
			env.Setenv("CATCHUP_HOST", "testhost")
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("TZ", "UTC")
			return os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o700)
		},
		RequireExplicitExec: false,
	})
}
