package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDieWithParent: a supervisor (a helper process running Run with
// DieWithParent) is SIGKILLed while its command runs; the command's whole
// process group dies with it: the command itself and a child of its shell.
// Without DieWithParent, the group outlives the supervisor.
func TestDieWithParent(t *testing.T) {
	tests := map[string]struct {
		die      bool
		wantGone bool
	}{
		"die with parent": {die: true, wantGone: true},
		"default":         {die: false, wantGone: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDieWithParent$")
			cmd.Env = append(os.Environ(), "RUNNER_TEST_HELPER=die-with-parent", "RUNNER_TEST_DIR="+dir,
				"RUNNER_TEST_DIE="+strconv.FormatBool(tc.die))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			inner := waitPID(t, filepath.Join(dir, "inner.pid"))
			outer := waitPID(t, filepath.Join(dir, "outer.pid"))
			t.Cleanup(func() { syscall.Kill(-outer, syscall.SIGKILL) })
			cmd.Process.Kill() // the supervisor alone, as a SIGKILL would
			cmd.Wait()
			deadline := time.Now().Add(hangGuard)
			for alive(outer) || alive(inner) {
				if !tc.wantGone {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the command's group outlived its supervisor: outer %v, inner %v", alive(outer), alive(inner))
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !tc.wantGone && !alive(inner) {
				t.Fatal("without DieWithParent the group died with its supervisor: the test shows nothing")
			}
		})
	}
}

func TestHelperDieWithParent(t *testing.T) {
	if os.Getenv("RUNNER_TEST_HELPER") != "die-with-parent" {
		t.Skip("helper process for TestDieWithParent")
	}
	dir := os.Getenv("RUNNER_TEST_DIR")
	// The waiting is done by a child of the shell, as in `sh -c 'a; b'`.
	_, err := Run(context.Background(), Config{
		Argv: sh(`echo $$ > "$1/outer.pid.tmp" && mv "$1/outer.pid.tmp" "$1/outer.pid"; `+
			`sh -c 'echo $$ > "$1/inner.pid.tmp" && mv "$1/inner.pid.tmp" "$1/inner.pid"; sleep 60' sh "$1"`, dir),
		DieWithParent: os.Getenv("RUNNER_TEST_DIE") == "true",
	})
	fmt.Fprintf(os.Stderr, "the supervisor was not killed: %v\n", err)
	os.Exit(1)
}

// waitPID waits for a pid file and reads it.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		if b, err := os.ReadFile(path); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}
