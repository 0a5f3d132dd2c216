package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonKilledAloneTakesItsJob: the daemon is SIGKILLed alone (an OOM
// kill under a supervisor, kill -9) while a job of its runs, on a SQLite
// ledger. Its job must die with it, as in a power cut: no one is left to
// record it, and the restarted daemon replays its slot. Before, the job
// ran on to its end, unrecorded, and its slot was then run again: the
// job's line written twice.
func TestDaemonKilledAloneTakesItsJob(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	_, db := tempLedger(t)
	h := newDaemonHost(t, db)
	p := h.start("a")
	waitFor(t, "the daemon to have run 2 slots", func() bool { return h.slotsInARow() >= 2 })
	pid := h.midJob(p)
	syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL) // the daemon alone
	p.cmd.Wait()
	waitFor(t, "the killed daemon's job to be gone", func() bool { return syscall.Kill(pid, 0) == syscall.ESRCH })
	killedAt := time.Now()

	p = h.start("a")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("restarted daemon's log:\n%s\njob output:\n%s", p.stderr.String(), strings.Join(readLines(t, h.out), "\n"))
		}
	})
	_, first, _ := h.written(false)
	h.waitSlotsFrom(first, h.slotsDue(first, killedAt)+2)
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	h.checkOnce(4)
}
