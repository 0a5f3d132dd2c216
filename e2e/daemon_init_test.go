package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDaemonAsPID1Warns: a daemon that is PID 1 of its PID namespace (a
// container's entrypoint without tini or docker run --init) warns at start
// that it does not reap the orphans its jobs leave. It needs root and
// unshare(1) to make a PID namespace; cmd TestDaemonWarnsWhenInit checks
// the warning without them.
func TestDaemonAsPID1Warns(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare(1) to run the daemon as PID 1")
	}
	if out, err := exec.Command(unshare, "--pid", "--fork", "--mount-proc", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare cannot make a PID namespace here: %v %s", err, out)
	}
	_, db := tempLedger(t)
	cron := filepath.Join(t.TempDir(), "crontab")
	if err := os.WriteFile(cron, []byte("# catchup: task=job\n* * * * * true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := newCatchup(t, db, "", "daemon", "--crontab", cron, "--rescan", "0")
	p.cmd.Path = unshare
	p.cmd.Args = append([]string{unshare, "--pid", "--fork", "--mount-proc", os.Args[0]}, p.cmd.Args[1:]...)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); p.cmd.Wait() })
	waitFor(t, "the daemon to start (event=start)", func() bool { return strings.Contains(p.stderr.String(), "event=start") })
	// From outside its namespace, the signal reaches the daemon (PID 1 there) through the process group.
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	p.cmd.Wait()
	log := p.stderr.String()
	if !strings.Contains(log, "PID 1") || !strings.Contains(log, "tini") || strings.Index(log, "PID 1") > strings.Index(log, "event=start") {
		t.Errorf("the daemon as PID 1 logged no warning about reaping orphans before it started:\n%s", log)
	}
}
