package e2e

import (
	"strings"
	"syscall"
	"testing"
)

// TestDaemonReplicasSQLite runs two daemons of one host on one SQLite
// ledger, the same crontab, and cuts the power under one of them and its
// job mid-run (frozen, then killed): each slot runs once in the end (the
// task's lock and the slot's record decide; the cut run, found dead, is
// replayed by the other replica), none twice.
func TestDaemonReplicasSQLite(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	_, db := tempLedger(t)
	h := newDaemonHost(t, db)
	procs := []*catchupProc{h.start("a"), h.start("a")}
	t.Cleanup(func() { // runs before the replicas are killed (last in, first out)
		if t.Failed() {
			for i, p := range procs {
				t.Logf("replica %d log:\n%s", i, p.stderr.String())
			}
			t.Logf("job output:\n%s", strings.Join(readLines(t, h.out), "\n"))
		}
	})
	victim := procs[0]
	pid := h.midJob(victim)
	powerCut(t, victim.cmd.Process.Pid, pid)
	victim.cmd.Wait()
	waitFor(t, "the other replica to have run 8 slots in a row, the cut one replayed", func() bool {
		return h.slotsInARow() >= 8
	})
	procs[1].cmd.Process.Signal(syscall.SIGTERM)
	procs[1].cmd.Wait()
	h.checkOnce(8)
	rows := ledgerRows(t, db, `SELECT slot, COUNT(*) FROM runs WHERE task = 'job' AND status = 'succeeded' GROUP BY slot HAVING COUNT(*) > 1`)
	if len(rows) > 0 {
		t.Errorf("slots that succeeded twice in the ledger: %v", rows)
	}
}
