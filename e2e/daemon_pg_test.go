package e2e

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestDaemonReplicas runs three daemons on one PostgreSQL ledger, each with
// its own host name and state directory, and cuts the power under one of
// them and its job mid-run: each slot runs once (the slot claim decides),
// and the cut run is replayed by another replica once its lease expired.
func TestDaemonReplicas(t *testing.T) {
	db := pgLedger(t)
	h := newDaemonHost(t, db)
	// A lease of 12 clock minutes is 12s of real time under the hook; the
	// heartbeats (every 10s of real time) keep a live run alive.
	h.extra = []string{"--lease", "12m"}
	var procs []*catchupProc
	for _, name := range []string{"a", "b", "c"} {
		procs = append(procs, h.start(name, "CATCHUP_STATE_DIR="+filepath.Join(t.TempDir(), name)))
	}
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
	if t.Failed() {
		for _, p := range procs {
			t.Logf("replica log:\n%s", p.stderr.String())
		}
	}
}
