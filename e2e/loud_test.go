package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLoudJobMemory runs a job that prints 1 GiB through catchup and checks
// that catchup's peak RSS stays under 50 MiB and that the last 64 KiB of the
// output are in the ledger.
func TestLoudJobMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 1 GiB; skipped with -short")
	}
	_, db := tempLedger(t)
	p := newCatchup(t, db, "", "run", "--task", "loud", "--", "sh", "-c", "head -c 1073741824 /dev/zero | tr '\\0' x; echo END")
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	p.cmd.Stdout = devnull // a real file, as cron's pipe would be
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// VmHWM is catchup's own peak RSS (wait4's figure would include the
	// job's processes): sample it until catchup exits.
	peak := 0
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	var err error
poll:
	for {
		if kb := vmHWM(p.cmd.Process.Pid); kb > peak {
			peak = kb
		}
		select {
		case err = <-exited:
			break poll
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err != nil {
		t.Fatalf("catchup: %v: %s", err, p.stderr.String())
	}
	t.Logf("catchup peak RSS while passing 1 GiB through: %.1f MiB", float64(peak)/1024)
	if peak == 0 || peak > 50*1024 {
		t.Errorf("peak RSS %d KiB, want under 50 MiB", peak)
	}
	tail := ledgerRows(t, db, `SELECT length(stdout_tail), substr(stdout_tail, -4) FROM runs`)
	if tail[0][0] != "65536" || tail[0][1] != "END\n" {
		t.Errorf("stdout tail: length %s, ends %q; want 65536 ending in END", tail[0][0], tail[0][1])
	}
}

// vmHWM reads a process's peak resident set size in KiB (0 if gone).
func vmHWM(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb
		}
	}
	return 0
}

// TestDaemonHoldingPipes: a job that forks a daemon which keeps stdout open
// must not hang catchup after the job itself exits.
func TestDaemonHoldingPipes(t *testing.T) {
	dir, db := tempLedger(t)
	p := newCatchup(t, db, "", "run", "--task", "forker", "--", "sh", "-c", "sleep 30 & echo $! > "+filepath.Join(dir, "daemon.pid")+"; echo bye")
	start := time.Now()
	code := p.run(t)
	if pid, err := os.ReadFile(filepath.Join(dir, "daemon.pid")); err == nil {
		exec.Command("kill", strings.TrimSpace(string(pid))).Run()
	}
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("catchup waited %v for a daemon's pipes", d)
	}
	if !strings.Contains(p.stdout.String(), "bye") {
		t.Errorf("output lost: %q", p.stdout.String())
	}
	if st := ledgerRows(t, db, `SELECT status FROM runs`); st[0][0] != "succeeded" {
		t.Errorf("status %v", st)
	}
}
