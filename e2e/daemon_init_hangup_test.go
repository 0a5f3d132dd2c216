package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonAsPID1HangupWhileStarting: as PID 1, the daemon's init passes
// SIGHUP on to the daemon it runs as its child; one that came while that
// child started (its package inits) ended it by SIGHUP's default action,
// and the init with it, exit 129: the container gone for a reload. The
// init now holds a SIGHUP until the child catches it, then passes it on (a
// reload). The signals go to PID 1 from the moment the runtime's trace
// shows the init's package reflect initialized (see
// TestDaemonHangupWhileStarting) until the daemon says it started.
func TestDaemonAsPID1HangupWhileStarting(t *testing.T) {
	_, db := tempLedger(t)
	cron := filepath.Join(t.TempDir(), "crontab")
	if err := os.WriteFile(cron, []byte("# catchup: task=job\n0 3 * * * true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GODEBUG", "inittrace=1") // the init's, and its child's
	d := startAsPID1(t, db, cron)
	const marker = "init reflect @" // the init's: its child starts later
	deadline := time.Now().Add(waitLimit)
	for !strings.Contains(d.stderr.String(), marker) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in PID 1's stderr within %v\n%s", marker, waitLimit, d.stderr.String())
		}
	}
	sent := 0
	for !strings.Contains(d.stderr.String(), `msg="daemon started"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not start within %v; stderr:\n%s", waitLimit, d.stderr.String())
		}
		if err := syscall.Kill(d.init, syscall.SIGHUP); err != nil {
			t.Fatalf("a SIGHUP (%d sent) ended PID 1 while its daemon started: %v, exit %d; stderr:\n%s", sent, err, d.exitCode(t), d.stderr.String())
		}
		sent++
		time.Sleep(20 * time.Microsecond)
	}
	waitFor(t, "the daemon to reload the crontab for a SIGHUP that came while it started", func() bool {
		return strings.Contains(d.stderr.String(), `msg="crontabs reloaded"`)
	})
	syscall.Kill(d.init, syscall.SIGTERM)
	if code := d.exitCode(t); code != 0 {
		t.Fatalf("PID 1 exited %d after SIGTERM, want 0 (%d SIGHUPs sent while it started); stderr:\n%s", code, sent, d.stderr.String())
	}
}
