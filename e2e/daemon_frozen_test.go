package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonFrozenPastSlots freezes the daemon (SIGSTOP, as docker pause
// or a suspended VM would) while several of its slots pass, then lets it
// go on (SIGCONT): it fires the first late and replays the others at once,
// under --rescan 0 too (no rescan would ever come for them), each slot
// once, and says which it did not fire.
func TestDaemonFrozenPastSlots(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	_, db := tempLedger(t)
	h := newDaemonHost(t, db)
	h.extra = []string{"--rescan", "0"} // the last --rescan wins
	p := h.start("a")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon log:\n%s\njob output:\n%s", p.stderr.String(), strings.Join(readLines(t, h.out), "\n"))
		}
	})
	waitFor(t, "the daemon to have run 2 slots", func() bool { return h.slotsInARow() >= 2 })
	_, before, _ := h.written(false)
	// Frozen between two of its jobs (each takes half a clock minute), for
	// four clock minutes: three or four slots pass.
	waitFor(t, "the daemon between two jobs", func() bool {
		_, _, last := h.written(false)
		return !strings.Contains(p.stderr.String(), "slot="+last.Add(time.Minute).Format(time.RFC3339)+" pid=")
	})
	if err := syscall.Kill(p.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // the frozen time itself: four clock minutes
	syscall.Kill(p.cmd.Process.Pid, syscall.SIGCONT)
	// The slots frozen past are fired or replayed at once, not left.
	deadline := time.Now().Add(5 * time.Second)
	for h.slotsInARow() < 9 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	if n := h.slotsInARow(); n < 9 {
		gaps, last := h.gaps(5)
		t.Fatalf("%d slots in a row from %s within 5s of SIGCONT, want at least 9; not run before %s: %v", n, before.Format(time.RFC3339), last.Format(time.RFC3339), gaps)
	}
	h.checkOnce(9)
	if !strings.Contains(p.stderr.String(), "came while the daemon could not fire") {
		t.Errorf("no warning of the slots the daemon could not fire")
	}
}
