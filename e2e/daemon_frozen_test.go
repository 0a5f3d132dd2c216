package e2e

import (
	"fmt"
	"strconv"
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
	h.rescan = "0"
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
	cont := time.Now()
	syscall.Kill(p.cmd.Process.Pid, syscall.SIGCONT)
	// Every slot due by the SIGCONT is fired or replayed, not left: under
	// --rescan 0 no rescan would ever come for a slot left. How soon is
	// the machine's to say (each job takes half a clock minute, longer on a
	// loaded machine): the wait is waitFor's, not five seconds, in which a
	// loaded machine ran 8 slots where 9 were asked.
	due := h.slotsDue(before, cont)
	t.Logf("%d slots due by the SIGCONT, from %s", due, before.Format(time.RFC3339))
	waitFor(t, fmt.Sprintf("the %d slots due by the SIGCONT, from %s, each run", due, before.Format(time.RFC3339)),
		func() bool { return h.slotsInARow() >= due })
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	h.checkOnce(due)
	if !strings.Contains(p.stderr.String(), "came while the daemon could not fire") {
		t.Errorf("no warning of the slots the daemon could not fire")
	}
}

// slotsDue is how many of the daemon's slots, from first on, its clock
// had come to at real time at (CATCHUP_TEST_MINUTE=1s from h.epoch).
func (h *daemonHost) slotsDue(first, at time.Time) int {
	sec, err := strconv.ParseInt(h.epoch, 10, 64)
	if err != nil {
		h.t.Fatal(err)
	}
	epoch := time.Unix(sec, 0)
	clock := epoch.Add(at.Sub(epoch) * 60)
	return int(clock.Sub(first)/time.Minute) + 1
}
