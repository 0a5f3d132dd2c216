package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopStuckDeadline mirrors cmd's stopDeadline: how long a stopped catchup
// may wait, with no job of its own running, for something that does not
// answer before it exits anyway.
const stopStuckDeadline = 40 * time.Second

// exitOf waits up to limit for p (started) to exit and returns its status,
// or kills its group and fails the test saying what it was still doing.
// With resend, it sends p that signal every half second meanwhile: two
// signals sent at once may reach catchup as one.
func exitOf(t *testing.T, p *catchupProc, limit time.Duration, after string, resend os.Signal) (int, time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	begin := time.Now()
	var again <-chan time.Time
	if resend != nil {
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		again = tick.C
	}
	for {
		select {
		case <-again:
			p.cmd.Process.Signal(resend)
			continue
		case err := <-done:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			return p.cmd.ProcessState.ExitCode(), time.Since(begin)
		case <-time.After(limit - time.Since(begin)):
		}
		wchans := threadWchans(p.cmd.Process.Pid)
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("catchup still running %v after %s (its threads wait in %v): a stop must end it in bounded time; stderr: %s",
			limit, after, wchans, p.stderr.String())
		return -1, 0
	}
}

// threadWchans lists where the threads of pid sleep in the kernel.
func threadWchans(pid int) []string {
	var out []string
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
	for _, w := range tasks {
		if b, err := os.ReadFile(w); err == nil {
			out = append(out, string(b))
		}
	}
	return out
}

// stuckInFIFOOpen waits until a thread of pid sleeps in an open(2) of a
// FIFO that has no writer.
func stuckInFIFOOpen(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("catchup (pid %d) to block opening the FIFO", pid), func() bool {
		return strings.Contains(strings.Join(threadWchans(pid), " "), "wait_for_partner")
	})
}

// fifoSidecarLedger makes a SQLite ledger, then puts a FIFO in place of
// its shared-memory file (-shm): SQLite opens it, blocking for a writer
// that never comes.
func fifoSidecarLedger(t *testing.T) string {
	t.Helper()
	_, db := tempLedger(t)
	if code := newCatchup(t, db, "", "run", "--task", "made", "--", "true").run(t); code != 0 {
		t.Fatalf("making the ledger: exit %d", code)
	}
	os.Remove(db + "-shm")
	if err := syscall.Mkfifo(db+"-shm", 0o600); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestStopStuckSecondSignal: a command held in an open(2) that never
// returns (a FIFO in place of its SQLite ledger's -shm) ignored SIGTERM for
// good, since its stop waits for the goroutine stuck in the system call:
// a second SIGTERM ends it at once, 143, with one line saying what it was
// waiting for. Every command that records anything.
func TestStopStuckSecondSignal(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	commands := map[string][]string{
		"scan":     {"scan"},
		"run":      {"run", "--task", "stuck", "--", "true"},
		"backfill": {"backfill", "--task", "made", "--from", "2026-12-01T00:00:00Z", "--to", "2026-12-02T00:00:00Z"},
		"prune":    {"prune", "--older-than", "90d"},
		"daemon":   {"daemon", "--crontab", "crontab"},
		"migrate":  {"migrate", "--from", "LEDGER", "--to", "PG"},
	}
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			db := fifoSidecarLedger(t)
			args = append([]string(nil), args...)
			for i, a := range args {
				switch a {
				case "LEDGER":
					args[i] = db
				case "PG":
					args[i] = pgLedger(t) // skips without a server
				}
			}
			p := newCatchup(t, db, "", args...)
			if err := os.WriteFile(filepath.Join(p.cmd.Dir, "crontab"), []byte("0 2 * * * catchup run --task c -- true\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stuckInFIFOOpen(t, p.cmd.Process.Pid)
			p.cmd.Process.Signal(syscall.SIGTERM)
			code, _ := exitOf(t, p, 10*time.Second, "SIGTERM again and again", syscall.SIGTERM)
			if code != 143 {
				t.Errorf("exit %d, want 143 (SIGTERM)", code)
			}
			if got := p.stderr.String(); !strings.Contains(got, "catchup: SIGTERM again while stopping: exiting now, not waiting for an open(2) of a file of the SQLite ledger") {
				t.Errorf("stderr %q: want one line naming the open it was stuck in", got)
			}
		})
	}
}

// TestStopStuckDeadline: stopped by one SIGTERM only (timeout(1),
// systemd before its SIGKILL), a catchup stuck in an open(2) that never
// returns exits 143 stopStuckDeadline after it, saying why.
func TestStopStuckDeadline(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := fifoSidecarLedger(t)
	p := newCatchup(t, db, "", "scan")
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stuckInFIFOOpen(t, p.cmd.Process.Pid)
	p.cmd.Process.Signal(syscall.SIGTERM)
	code, took := exitOf(t, p, stopStuckDeadline+30*time.Second, "one SIGTERM", nil)
	if code != 143 {
		t.Errorf("exit %d, want 143 (SIGTERM)", code)
	}
	if took < stopStuckDeadline-time.Second {
		t.Errorf("exited %v after the SIGTERM: before the deadline (%v), it would cut a record waiting for a busy SQLite ledger", took, stopStuckDeadline)
	}
	want := fmt.Sprintf("catchup: still stopping SIGTERM after %s, with no job running: exiting now, not waiting for an open(2)", stopStuckDeadline)
	if got := p.stderr.String(); !strings.Contains(got, want) {
		t.Errorf("stderr %q: want %q", got, want)
	}
}
