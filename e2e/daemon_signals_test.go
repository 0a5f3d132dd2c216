package e2e

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestDaemonHangupStormWithEdits sends the daemon SIGHUP every 200ms while
// its jobs run, its crontab's line rewritten every 1.5s (its command
// changed and back, so that reloads restart the task's loop mid-job), then
// stops it with SIGTERM mid-job, and SIGHUPs the restarted one while it
// replays: each slot runs exactly once.
func TestDaemonHangupStormWithEdits(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	_, db := tempLedger(t)
	h := newDaemonHost(t, db)
	lines := []string{
		fmt.Sprintf("# catchup: task=job\n* * * * * sleep 0.5; echo \"$CATCHUP_SLOT $CATCHUP_TRIGGER\" >> %s\n", h.out),
		fmt.Sprintf("# catchup: task=job\n* * * * * sleep 0.4; echo \"$CATCHUP_SLOT $CATCHUP_TRIGGER\" >> %s\n", h.out),
	}
	storm := func(p *catchupProc, edit bool) (stop func()) {
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				if edit && i%8 == 7 {
					tmp := h.cron + ".tmp"
					os.WriteFile(tmp, []byte(lines[(i/8)%2]), 0o644)
					os.Rename(tmp, h.cron)
				}
				p.cmd.Process.Signal(syscall.SIGHUP)
			}
		}()
		return func() { close(done); wg.Wait() }
	}
	p := h.start("a")
	logs := []*catchupProc{p}
	h.logOnFailure(t, &logs)
	waitFile(t, db)
	stop := storm(p, true)
	waitFor(t, "10 slots in a row under the SIGHUP storm", func() bool { return h.slotsInARow() >= 10 })
	h.midJob(p)
	p.cmd.Process.Signal(syscall.SIGTERM)
	stop()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("daemon after SIGTERM: %v", err)
	}
	p = h.start("a")
	logs = append(logs, p)
	// As before the first storm (waitFile: the daemon made its ledger), the
	// storm starts once the daemon catches SIGHUP: the ledger is there
	// already, and a SIGHUP in the runtime's own start (milliseconds, or far
	// more on a loaded machine) ends it by its default action, silently
	// (contract: only the runtime's start is left uncaught).
	waitFor(t, "the restarted daemon to start (its event=start line)", func() bool {
		return strings.Contains(p.stderr.String(), "event=start")
	})
	stop = storm(p, false)
	waitFor(t, "16 slots in a row after the restart", func() bool { return h.slotsInARow() >= 16 })
	stop()
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	h.checkOnce(16)
	for i, p := range logs {
		if strings.Contains(p.stderr.String(), "panic") || strings.Contains(p.stderr.String(), "level=ERROR") {
			t.Errorf("daemon %d logged an error or a panic", i)
		}
	}
}

// logOnFailure logs, if the test fails, the log of each daemon in *logs
// (the list as the test left it: restarts appended) and the job's output.
func (h *daemonHost) logOnFailure(t *testing.T, logs *[]*catchupProc) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for i, p := range *logs {
			t.Logf("daemon %d log:\n%s", i, p.stderr.String())
		}
		t.Logf("job output:\n%s", strings.Join(readLines(t, h.out), "\n"))
	})
}
