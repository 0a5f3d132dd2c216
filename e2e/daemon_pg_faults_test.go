package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgReplicas starts two daemons, a and b, on the PostgreSQL ledger db, each
// with its own state directory and its connections named
// catchup-e2e-NAME-SUFFIX (application_name), and logs their story if the
// test fails.
func pgReplicas(t *testing.T, h *daemonHost, db, suffix string) (a, b *catchupProc) {
	t.Helper()
	var procs []*catchupProc
	for _, name := range []string{"a", "b"} {
		h.db = db + "&application_name=" + appName(name, suffix)
		procs = append(procs, h.start(name, "CATCHUP_STATE_DIR="+filepath.Join(t.TempDir(), name)))
	}
	h.db = db
	t.Cleanup(func() {
		if t.Failed() {
			for i, p := range procs {
				t.Logf("replica %c log:\n%s", 'a'+i, p.stderr.String())
			}
			t.Logf("job output:\n%s", strings.Join(readLines(t, h.out), "\n"))
		}
	})
	return procs[0], procs[1]
}

func appName(replica, suffix string) string { return "catchup-e2e-" + replica + "-" + suffix }

// stopAll stops the daemons with SIGTERM and waits for them.
func stopAll(procs ...*catchupProc) {
	for _, p := range procs {
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range procs {
		p.cmd.Wait()
	}
}

// TestDaemonReplicaFrozenWithinItsLease freezes (SIGSTOP) one of two
// daemons on one PostgreSQL ledger, its job with it, for less than the
// lease: once in the middle of its job (its run holds the task), once
// wherever it is (maybe about to claim). The other carries on (its fires
// meanwhile find the task held, or claim the slots); thawed, the frozen one
// fires late the slots it slept through. Each slot runs exactly once.
func TestDaemonReplicaFrozenWithinItsLease(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	h := newDaemonHost(t, db)
	h.extra = []string{"--lease", "12m"} // 12s of real time; a freeze lasts 3s
	a, b := pgReplicas(t, h, db, fmt.Sprint(time.Now().UnixNano()))
	freeze := func() {
		if err := syscall.Kill(-a.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second) // three slots pass under the hook's clock
		syscall.Kill(-a.cmd.Process.Pid, syscall.SIGCONT)
	}
	h.midJob(a)
	freeze()
	waitFor(t, "6 slots in a row after the first freeze", func() bool { return h.slotsInARow() >= 6 })
	freeze()
	waitFor(t, "14 slots in a row after the second freeze", func() bool { return h.slotsInARow() >= 14 })
	stopAll(a, b)
	h.checkOnce(14)
}

// TestDaemonReplicaBackendKilled kills (pg_terminate_backend) every
// PostgreSQL connection of one of two daemons on one ledger as it appears,
// for 2s from the middle of its job (its outcome's write among them): it
// reconnects, records the job's outcome on its own claim, and no slot runs
// twice nor is left unrun.
func TestDaemonReplicaBackendKilled(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	h := newDaemonHost(t, db)
	h.extra = []string{"--lease", "12m"}
	suffix := fmt.Sprint(time.Now().UnixNano())
	a, b := pgReplicas(t, h, db, suffix)
	admin, err := pgx.Connect(context.Background(), db) // in the ledger's schema
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	h.midJob(a)
	slot := lastFire(t, a)
	// A run holds no connection while its command runs: every connection a
	// opens for 2s (its outcome's, its rescans') is killed as it appears.
	killed := 0
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		var n int
		if err := admin.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`,
			appName("a", suffix)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		killed += n
	}
	if killed == 0 {
		t.Fatalf("replica a opened no connection in 2s to be killed")
	}
	waitFor(t, "12 slots in a row after replica a lost its connections", func() bool { return h.slotsInARow() >= 12 })
	stopAll(a, b)
	h.checkOnce(12)
	var status, trigger, host string
	if err := admin.QueryRow(context.Background(), `SELECT status, trigger, host FROM runs WHERE task = 'job' AND slot = $1 AND status <> 'skipped'`,
		mustTime(t, slot)).Scan(&status, &trigger, &host); err != nil || status != "succeeded" || host != "a" {
		t.Errorf("slot %s, whose job ran on a as its connections were killed: %s %s on %q (%v); want succeeded on a", slot, status, trigger, host, err)
	}
}

// lastFire is the slot of p's latest fire.
func lastFire(t *testing.T, p *catchupProc) string {
	t.Helper()
	m := firePid.FindAllStringSubmatch(p.stderr.String(), -1)
	if len(m) == 0 {
		t.Fatal("no fire")
	}
	return m[len(m)-1][1]
}

// TestDaemonReplicaFrozenPastItsLease freezes one of two daemons on one
// PostgreSQL ledger in the middle of its job for longer than the lease: the
// other takes the run for dead and replays its slot, and the frozen one,
// thawed, ends its job before any heartbeat and records its outcome late.
// The slot ran twice (docs/distributed.md: the lease bounds the wait); the
// frozen replica must say so, not only that its job succeeded. Every other
// slot runs once.
func TestDaemonReplicaFrozenPastItsLease(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	h := newDaemonHost(t, db)
	h.extra = []string{"--lease", "4m"} // 4s of real time, under the heartbeats' 10s
	a, b := pgReplicas(t, h, db, fmt.Sprint(time.Now().UnixNano()))
	h.midJob(a)
	slot := lastFire(t, a)
	if err := syscall.Kill(-a.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "replica b to replay the frozen replica's slot", func() bool {
		return strings.Contains(b.stderr.String(), "event=done task=job slot="+slot+" ")
	})
	syscall.Kill(-a.cmd.Process.Pid, syscall.SIGCONT)
	waitFor(t, "12 slots in a row after the thaw", func() bool { return h.slotsInARow() >= 12 })
	stopAll(a, b)
	count, _, _ := h.written(true)
	for s, n := range count {
		if n != 1 && s.Format(time.RFC3339) != slot {
			t.Errorf("slot %s ran %d times, want once", s.Format(time.RFC3339), n)
		}
	}
	if !strings.Contains(a.stderr.String(), "was taken for dead before its outcome was recorded") ||
		!strings.Contains(a.stderr.String(), "slot "+slot+" may have run twice") {
		t.Errorf("the frozen replica did not say that slot %s, taken for dead and replayed, may have run twice", slot)
	}
}
