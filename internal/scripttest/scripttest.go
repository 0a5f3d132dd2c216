// Package scripttest holds what the CLI scenarios of testdata/script need
// to run as testscript files: the environment each starts in and the
// script commands beyond testscript's own (exact exit statuses, waits with
// deadlines, a ping monitor). Three test packages run the same scenarios:
// the root package on SQLite, pgscripts/first and pgscripts/second on
// PostgreSQL, half each (RunPostgres); each is its own test binary, so
// that each stays well inside go test's per-package limit.
package scripttest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// ScenariosAtOnce is how many scenarios a package of them runs at once
// unless -test.parallel says otherwise. A scenario mostly waits for the
// catchup processes it starts (their starts, a lock, a job's sleep, a wait's deadline): at go
// test's default, GOMAXPROCS, two CPUs ran two at a time and stood 0.63
// busy (wall 101 s, user+sys 64 s); four at a time took 69 s for the same
// CPU time (SQLite); the first half on PostgreSQL took 49 s at two, 19 s
// at four. Packages set it in TestMain with testflags.DefaultParallel.
const ScenariosAtOnce = 4

// PostgresScenariosAtOnce is ScenariosAtOnce for the scenarios on
// PostgreSQL (pgscripts/first and second). Six at once looked faster
// alone (a half in 46-61 s where four took 53-73 s, beside a helper's
// tests), but under go test ./... the halves took 93 and 77 s where they
// took 73 and 68 s at four: the server's commits queue behind each other.
const PostgresScenariosAtOnce = 4

// Params runs the scenarios in dir on one backend ("sqlite" or
// "postgres", the scripts' conditions of the same names); ledger sets
// CATCHUP_DB for a script.
func Params(dir, backend string, ledger func(*testscript.Env) error) testscript.Params {
	return testscript.Params{
		Dir: dir,
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
			// cron's default PATH, where crontab wrap looks for catchup
			// for lines under no PATH=: the scripts' catchup is on PATH
			env.Setenv("CATCHUP_CRON_PATH", env.Getenv("PATH"))
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
			case "zoneinfolocaltime": // Debian's /usr/share/zoneinfo/localtime, a link to /etc/localtime
				_, err := os.Stat("/usr/share/zoneinfo/localtime")
				return err == nil, nil
			case "othersreach": // another user may reach the work directories by their paths
				return othersReach(os.TempDir()), nil
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
			"sql":        cmdSQL,
			"waitsql":    cmdWaitSQL,
			"gone":       cmdGone,
			"signal":     cmdSignal,
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

// othersReach reports whether a user other than dir's owners may reach
// dir by its path: every directory from / down to it searchable by
// others. scripts/stress-tests.sh runs the tests under a private (0700)
// directory, where a script that drops to another user cannot reach its
// work directory.
func othersReach(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}
