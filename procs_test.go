package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// catchupProc is a real catchup process: this test binary re-run as main.
type catchupProc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

// newCatchup prepares `catchup args...` with a ledger and a clock; it runs in
// its own process group so that a test can kill the whole tree.
func newCatchup(t *testing.T, db, now string, args ...string) *catchupProc {
	t.Helper()
	p := &catchupProc{cmd: exec.Command(os.Args[0], args...)}
	p.cmd.Env = append(os.Environ(), "CATCHUP_TEST_AS_MAIN=1", "CATCHUP_DB="+db, "CATCHUP_HOST=testhost", "TZ=UTC")
	if now != "" {
		p.cmd.Env = append(p.cmd.Env, "CATCHUP_NOW="+now)
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return p
}

// run runs the process to the end and returns its exit status.
func (p *catchupProc) run(t *testing.T) int {
	t.Helper()
	err := p.cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errorsAs(err, &ee):
		return ee.ExitCode()
	default:
		t.Fatalf("run catchup: %v", err)
		return -1
	}
}

func errorsAs(err error, target **exec.ExitError) bool {
	ee, ok := err.(*exec.ExitError)
	if ok {
		*target = ee
	}
	return ok
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}

// waitGone waits until no process of group pgid is alive.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d still alive", pid)
}

// ledgerRows queries the ledger directly, as an auditor would.
func ledgerRows(t *testing.T, db, query string, args ...any) [][]string {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	return out
}

func integrityOK(t *testing.T, db string) {
	t.Helper()
	if got := ledgerRows(t, db, `PRAGMA integrity_check`); len(got) != 1 || got[0][0] != "ok" {
		t.Fatalf("integrity_check: %v", got)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func tempLedger(t *testing.T) (dir, db string) {
	dir = t.TempDir()
	return dir, filepath.Join(dir, "state", "catchup.db")
}

func timeParse(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
