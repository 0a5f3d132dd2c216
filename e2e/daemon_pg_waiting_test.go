package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonReplicaOfAWaitingLine: two daemons on one PostgreSQL ledger
// run an --on-busy wait line whose job (1.3 clock minutes) outlasts its
// period, so that each replica's fires wait for the lock one after
// another and neither is ever idle. The power is cut under one replica
// mid-job: the other replays the cut slot once its lease is over, among
// its own fires, and every slot runs once. Before, the surviving replica's
// rescans waited for its fires to end, which never came: the cut slot
// was never replayed while it ran (only by a daemon's next start). The
// cut slot is replayed before any later slot runs: b's fire that waited
// behind the cut run replays it first, once the lease is over (before, it
// ran its own later slot first, and a rescan replayed the cut one after).
func TestDaemonReplicaOfAWaitingLine(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	h := newDaemonHost(t, db)
	line := fmt.Sprintf("# catchup: task=job\n* * * * * catchup run --task job --on-busy wait -- sleep 1.3; "+
		"echo \"$CATCHUP_SLOT $CATCHUP_TRIGGER\" >> %s\n", h.out)
	if err := os.WriteFile(h.cron, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	h.extra = []string{"--lease", "12m"} // 12s of real time: the heartbeats keep a live run alive
	var procs []*catchupProc
	for _, name := range []string{"a", "b"} {
		procs = append(procs, h.start(name, "CATCHUP_STATE_DIR="+filepath.Join(t.TempDir(), name)))
	}
	t.Cleanup(func() { // runs before the replicas are killed and the schema dropped (last in, first out)
		if t.Failed() {
			for i, p := range procs {
				t.Logf("replica %d log:\n%s", i, p.stderr.String())
			}
			t.Logf("job output:\n%s", strings.Join(readLines(t, h.out), "\n"))
		}
	})
	victim := procs[0]
	pid := h.midJob(victim)
	m := regexp.MustCompile(`event=fire task=job slot=(\S+) pid=` + fmt.Sprint(pid)).FindStringSubmatch(victim.stderr.String())
	if m == nil {
		t.Fatalf("no fire of pid %d in a's log:\n%s", pid, victim.stderr.String())
	}
	cut, err := time.Parse(time.RFC3339, m[1])
	if err != nil {
		t.Fatal(err)
	}
	powerCut(t, victim.cmd.Process.Pid, pid)
	victim.cmd.Wait()
	// The lease is over 12 clock minutes after the cut run's last
	// heartbeat; a rescan's turn comes within a few more of b's fires.
	by := cut.Add(24 * time.Minute)
	waitFor(t, "b to replay the cut slot "+m[1]+" or to run past "+by.Format(time.RFC3339), func() bool {
		count, _, last := h.written(false)
		return count[cut] > 0 || last.After(by)
	})
	if count, _, _ := h.written(false); count[cut] == 0 {
		t.Fatalf("the cut slot %s was not replayed while b's fires ran on past %s", m[1], by.Format(time.RFC3339))
	}
	h.waitSlotsFrom(cut, 10)
	procs[1].cmd.Process.Signal(syscall.SIGTERM)
	procs[1].cmd.Wait()
	h.checkOnce(10)
	h.checkNoneBefore(cut)
}
