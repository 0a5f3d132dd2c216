package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run this test binary as the real `catchup`
// command, end to end, in its own process.
// Go tests that need real catchup processes (faults, load) re-run this
// binary with CATCHUP_TEST_AS_MAIN=1.
func TestMain(m *testing.M) {
	if os.Getenv("CATCHUP_TEST_AS_MAIN") == "1" {
		main()
	}
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
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status": cmdStatus,
		},
	})
}

// cmdStatus runs a command and checks its exact exit status, keeping its
// stdout and stderr for the next assertions:
//
//	status 75 catchup run --task t -- true
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE COMMAND [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: bad code %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("status: %v", err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}
