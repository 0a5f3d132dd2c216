package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/catchup/catchup/internal/pgtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run this test binary as the real `catchup`
// command, end to end, in its own process. The Go tests that drive real
// catchup processes (faults, load, fleets) live in package e2e.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) != "catchup" { // not a script's `catchup`, where it would be output
		pgtest.Notice("github.com/catchup/catchup")
	}
	testscript.Main(m, map[string]func(){"catchup": main})
}

// TestScripts runs the CLI scenarios in testdata/script, one per file, on
// a SQLite ledger.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("sqlite", func(env *testscript.Env) error {
		env.Setenv("CATCHUP_DB", filepath.Join(env.WorkDir, "state", "catchup.db"))
		return nil
	}))
}

// TestScriptsPostgres runs the same scenarios on a shared PostgreSQL
// ledger, each in its own schema. Scripts about the SQLite file itself
// start with `[postgres] skip`.
func TestScriptsPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	if testing.Short() {
		t.Skip("-short: the scripts run on PostgreSQL in the full run")
	}
	testscript.Run(t, scriptParams("postgres", func(env *testscript.Env) error {
		db, err := pgtest.Schema(env.T().(testing.TB), dsn)
		if err != nil {
			return err
		}
		env.Setenv("CATCHUP_DB", db)
		return nil
	}))
}

func scriptParams(backend string, ledger func(*testscript.Env) error) testscript.Params {
	return testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("CATCHUP_HOST", "testhost")
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("CATCHUP_STATE_DIR", filepath.Join(env.WorkDir, "statedir"))
			env.Setenv("CATCHUP_NOTE_DIR", filepath.Join(env.WorkDir, "notes"))
			// The host's zone, as cron reads it (/etc/localtime), is UTC here
			// whatever this machine's is.
			localtime := filepath.Join(env.WorkDir, ".localtime")
			if err := os.Symlink("/usr/share/zoneinfo/UTC", localtime); err != nil {
				return err
			}
			env.Setenv("CATCHUP_LOCALTIME", localtime)
			env.Setenv("TZ", "UTC")
			if err := os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o700); err != nil {
				return err
			}
			return ledger(env)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "sqlite", "postgres":
				return cond == backend, nil
			case "root": // the script gives files to other users (chown)
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":     cmdStatus,
			"waitfile":   cmdWaitFile,
			"waitgone":   cmdWaitGone,
			"waitopen":   cmdWaitOpen,
			"waitlog":    cmdWaitLog,
			"pingserver": cmdPingServer,
		},
	}
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
