package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonRollingRestartKeepsSlotOrder is the rolling update of two
// replicas on one ledger (PostgreSQL; or a SQLite file two daemons of one
// host share): replica b runs a job longer than its interval (its next
// fires held behind it, unclaimed) when replica a starts, whose start scan
// leaves the slots after b's held one "so that none runs before it"; then
// b is stopped (its job interrupted, its held fires recorded lock skips).
// a's next fire must not run its slot before those (it replays them
// first), where it ran at once and they waited for a's next rescan, after
// it; with --rescan 0, for a's next start: never replayed while it ran.
// (A daemon killed alone no longer leaves such a holder behind: its jobs
// die with it, TestDaemonKilledAloneTakesItsJob.)
func TestDaemonRollingRestartKeepsSlotOrder(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	for name, tc := range map[string]struct {
		postgres bool
		rescan   string
	}{
		"postgres":               {postgres: true, rescan: "10s"},
		"sqlite":                 {rescan: "10s"},
		"sqlite without rescans": {rescan: "0"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var db string
			if tc.postgres {
				db = pgLedger(t)
			} else {
				_, db = tempLedger(t)
			}
			rollingRestart(t, db, tc.rescan)
		})
	}
}

func rollingRestart(t *testing.T, db, rescan string) {
	h := newDaemonHost(t, db)
	hold, _ := h.holdingLine()
	// A lease of 12 clock minutes is 12s of real time under the hook; the
	// next fire comes well before the next rescan.
	h.extra, h.rescan = []string{"--lease", "12m"}, rescan
	b := h.start("b", "CATCHUP_STATE_DIR="+filepath.Join(t.TempDir(), "b"))
	var a *catchupProc
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replica b's log:\n%s", b.stderr.String())
			if a != nil {
				t.Logf("replica a's log:\n%s", a.stderr.String())
			}
			t.Logf("job output:\n%s", strings.Join(readLines(t, h.out), "\n"))
		}
	})
	waitFor(t, "replica b to have run 2 slots", func() bool { return h.slotsInARow() >= 2 })
	touch(t, hold)
	waitFor(t, "a job to take "+hold, func() bool { _, err := os.Stat(hold); return os.IsNotExist(err) })
	_, _, held := h.written(false)
	waitFor(t, "two slots held behind b's job", func() bool { return h.slotsDue(held, time.Now()) >= 3 })

	a = h.start("a", "CATCHUP_STATE_DIR="+filepath.Join(t.TempDir(), "a"))
	waitFor(t, "replica a's start scan to find b's slot held", func() bool {
		return strings.Contains(a.stderr.String(), "is held by run")
	})
	b.cmd.Process.Signal(syscall.SIGTERM) // its job interrupted, its held fires recorded lock skips
	if err := b.cmd.Wait(); err != nil {
		t.Fatalf("replica b after SIGTERM: %v", err)
	}
	h.waitSlotsFrom(held, h.slotsDue(held, time.Now())+2)
	a.cmd.Process.Signal(syscall.SIGTERM)
	a.cmd.Wait()

	// After b's line of its held slot, the slots run oldest first, each
	// once (that slot again: b's run of it was interrupted).
	h.checkOrderAfter(held)
}
