package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonHangupWhileStarting: a SIGHUP that reaches the daemon in its
// first milliseconds, while the binary's packages are initialized and the
// command starts (a supervisor's reload hook, `docker kill -s HUP` as the
// container starts), neither ends it (SIGHUP's default action: exit 129,
// as it did) nor is lost: the daemon starts, and one caught before its own
// handler was in place reloads the crontab. The signals are sent from the
// moment the runtime's trace (GODEBUG=inittrace=1) shows package reflect
// initialized (one of the first, before the drivers, cobra and the
// command: right after os/signal and internal/hangup, which catches the
// signal from there on) until the daemon says it started.
func TestDaemonHangupWhileStarting(t *testing.T) {
	_, db := tempLedger(t)
	cron := filepath.Join(t.TempDir(), "crontab")
	if err := os.WriteFile(cron, []byte("# catchup: task=job\n0 3 * * * true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := newCatchup(t, db, "", "daemon", "--crontab", cron, "--grace", "1s")
	p.cmd.Env = append(p.cmd.Env, "GODEBUG=inittrace=1")
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) })
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	const marker = "init reflect @"
	deadline := time.Now().Add(waitLimit)
	for !strings.Contains(p.stderr.String(), marker) {
		select {
		case err := <-exited:
			t.Fatalf("the daemon exited (%v) before its packages were initialized; stderr:\n%s", err, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the daemon's stderr within %v\n%s", marker, waitLimit, p.stderr.String())
		}
	}
	sent := 0
	for !strings.Contains(p.stderr.String(), `msg="daemon started"`) {
		select {
		case err := <-exited:
			t.Fatalf("a SIGHUP (%d sent) ended the daemon while it started: %v; stderr:\n%s", sent, err, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not start within %v; stderr:\n%s", waitLimit, p.stderr.String())
		}
		if err := syscall.Kill(p.cmd.Process.Pid, syscall.SIGHUP); err != nil {
			t.Fatalf("a SIGHUP (%d sent) ended the daemon while it started: %v, %v; stderr:\n%s", sent, err, <-exited, p.stderr.String())
		}
		sent++
		time.Sleep(20 * time.Microsecond)
	}
	if sent == 0 {
		t.Fatalf("no SIGHUP sent: the daemon started before the trace showed %q; stderr:\n%s", marker, p.stderr.String())
	}
	waitFor(t, "the daemon to reload the crontab for a SIGHUP that came while it started", func() bool {
		return strings.Contains(p.stderr.String(), `msg="crontabs reloaded"`)
	})
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("daemon after SIGTERM: %v; stderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(waitLimit):
		t.Fatalf("the daemon did not stop within %v of SIGTERM; stderr:\n%s", waitLimit, p.stderr.String())
	}
}
