package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonRestartedBesideAnOrphanKeepsSlotOrder kills the daemon alone
// (SIGKILL, as an OOM killer does) while a job of its runs on, holding its
// task's lock; the daemon restarts while that orphan still runs, and its
// start scan leaves the slots of its downtime behind the orphan's held
// slot, "so that none runs before it". The orphan then ends before the
// task's next fire: that fire must not run its slot before the slots left
// (the restarted daemon replays them first), where it ran at once and the
// left slots waited for the next rescan, after it (with --rescan 0, for
// the next start: never replayed while the daemon ran).
func TestDaemonRestartedBesideAnOrphanKeepsSlotOrder(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	for name, rescan := range map[string]string{
		"next rescan after the next fire": "10s",
		"no rescan":                       "0",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			restartBesideAnOrphan(t, rescan)
		})
	}
}

func restartBesideAnOrphan(t *testing.T, rescan string) {
	_, db := tempLedger(t)
	h := newDaemonHost(t, db)
	hold, release := h.holdingLine()
	h.extra = []string{"--rescan", rescan}
	p := h.start("a")
	waitFor(t, "the daemon to have run 2 slots", func() bool { return h.slotsInARow() >= 2 })
	touch(t, hold)
	waitFor(t, "a job to take "+hold, func() bool { _, err := os.Stat(hold); return os.IsNotExist(err) })
	_, _, held := h.written(false)
	syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL) // the daemon alone: its job runs on, an orphan
	p.cmd.Wait()
	waitFor(t, "two slots of downtime", func() bool { return h.slotsDue(held, time.Now()) >= 3 })

	p = h.start("a")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("restarted daemon's log:\n%s\njob output:\n%s", p.stderr.String(), strings.Join(readLines(t, h.out), "\n"))
		}
	})
	waitFor(t, "the restarted daemon's scan to find the orphan's slot held", func() bool {
		return strings.Contains(p.stderr.String(), "is held by run")
	})
	touch(t, release)
	h.waitSlotsFrom(held, h.slotsDue(held, time.Now())+2)
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()

	// After the orphan's line, the slots run oldest first, each once (the
	// orphan's slot again: its outcome was never recorded).
	h.checkOrderAfter(held)
}

// holdingLine writes the daemon's crontab: a job that writes its slot,
// and, when it finds hold, takes it and runs until release appears.
func (h *daemonHost) holdingLine() (hold, release string) {
	dir := filepath.Dir(h.cron)
	hold, release = filepath.Join(dir, "hold"), filepath.Join(dir, "release")
	line := fmt.Sprintf("# catchup: task=job\n* * * * * echo \"$CATCHUP_SLOT $CATCHUP_TRIGGER\" >> %s; "+
		"if [ -e %s ]; then rm %s; while [ ! -e %s ]; do sleep 0.05; done; fi\n", h.out, hold, hold, release)
	if err := os.WriteFile(h.cron, []byte(line), 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { touch(h.t, release) }) // a job still holding ends with the test
	return hold, release
}

// waitSlotsFrom waits until n slots from first on have each been written.
func (h *daemonHost) waitSlotsFrom(first time.Time, n int) {
	waitFor(h.t, fmt.Sprintf("%d slots from %s each run", n, first.Format(time.RFC3339)), func() bool {
		count, _, _ := h.written(false)
		for i := range n {
			if count[first.Add(time.Duration(i)*time.Minute)] == 0 {
				return false
			}
		}
		return true
	})
}

// checkOrderAfter checks that the slots written after the first line of
// slot held run oldest first: none before an older one.
func (h *daemonHost) checkOrderAfter(held time.Time) {
	var after []string
	seen := false
	for _, l := range readLines(h.t, h.out) {
		if seen {
			after = append(after, l)
		}
		seen = seen || strings.HasPrefix(l, held.Format(time.RFC3339))
	}
	var prev time.Time
	for _, l := range after {
		s, err := time.Parse(time.RFC3339, strings.Fields(l)[0])
		if err != nil {
			h.t.Fatalf("bad line %q", l)
		}
		if !s.After(prev) {
			h.t.Errorf("slot %s ran after slot %s: not oldest first; lines after the held slot's:\n%s",
				s.Format(time.RFC3339), prev.Format(time.RFC3339), strings.Join(after, "\n"))
			return
		}
		prev = s
	}
}
