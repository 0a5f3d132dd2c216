package e2e

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonReplicas runs three daemons on one PostgreSQL ledger, each with
// its own host name and state directory, and cuts the power under one of
// them and its job mid-run: each slot runs once (the slot claim decides),
// and the cut run is replayed by another replica once its lease expired.
func TestDaemonReplicas(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	h := newDaemonHost(t, db)
	// A lease of 12 clock minutes is 12s of real time under the hook; the
	// heartbeats (every 10s of real time) keep a live run alive.
	h.extra = []string{"--lease", "12m"}
	var procs []*catchupProc
	for _, name := range []string{"a", "b", "c"} {
		procs = append(procs, h.start(name, "CATCHUP_STATE_DIR="+filepath.Join(t.TempDir(), name)))
	}
	t.Cleanup(func() { // runs before the replicas are killed and the schema dropped (last in, first out)
		if t.Failed() {
			for i, p := range procs {
				t.Logf("replica %d log:\n%s", i, p.stderr.String())
			}
			t.Logf("job output:\n%s", strings.Join(readLines(t, h.out), "\n"))
			gaps, last := h.gaps(3)
			for _, slot := range gaps { // the story of a slot that never ran
				p := newCatchup(t, db, last.Add(time.Minute).Format(time.RFC3339), "explain", "job", slot)
				p.run(t)
				t.Logf("catchup explain job %s:\n%s%s", slot, p.stdout.String(), p.stderr.String())
			}
		}
	})
	victim := procs[0]
	pid := h.midJob(victim)
	powerCut(t, victim.cmd.Process.Pid, pid)
	victim.cmd.Wait()
	waitFor(t, "the other replicas to have run 20 slots in a row, the cut one replayed", func() bool {
		return h.slotsInARow() >= 20
	})
	for _, p := range procs {
		if p != victim {
			p.cmd.Process.Signal(syscall.SIGTERM)
			p.cmd.Wait()
		}
	}
	h.checkOnce(20)
}
