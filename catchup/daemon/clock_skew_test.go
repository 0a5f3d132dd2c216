package daemon

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestDaemonSaysClockSkewOnceUntilFine: a daemon of a shared ledger whose
// host's clock is more than a quarter of the lease off the server's logs
// one warning at its start; the fires' jobs that start while it stays so
// say nothing more; once a fire found it fine, a fire that finds it off
// again says it again. The server's clock is read by the open and by each
// fire's claim (PostgreSQL, a schema of the test's own).
func TestDaemonSaysClockSkewOnceUntilFine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, db := replicaLedgers["postgres"](t, dir)
	now := time.Now()
	r := newReplica(t, st, db, dir, replicaLockDir(st, dir)("h"), "h", &now)
	var offset atomic.Int64 // this host's clock, off the real one (the server's) by this much
	m := &r.d.cfg.Machine
	m.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	m.Lease, m.Where = time.Minute, "the test's ledger"
	offset.Store(int64(-10 * time.Minute)) // registered before the slots it fires
	r.load(t, "* * * * *")
	said := func() int { return strings.Count(r.logs.String(), "this host's clock is") }
	base := time.Now().UTC().Truncate(time.Minute)
	for i, step := range []struct {
		offset time.Duration
		fire   bool // else the start's check
		said   int  // warnings logged so far
	}{
		{offset: 90 * time.Second, said: 1},
		{offset: 90 * time.Second, fire: true, said: 1},
		{offset: 0, fire: true, said: 1},
		{offset: -90 * time.Second, fire: true, said: 2},
		{offset: -90 * time.Second, fire: true, said: 2},
	} {
		offset.Store(int64(step.offset))
		if step.fire {
			r.d.fire(context.Background(), r.task, base.Add(time.Duration(i-5)*time.Minute))
		} else {
			r.d.checkClock()
		}
		if got := said(); got != step.said {
			t.Fatalf("step %d (%v off, fire %v): %d warnings logged, want %d; log:\n%s", i, step.offset, step.fire, got, step.said, r.logs.String())
		}
	}
	if got := ran(t, dir); len(got) != 4 {
		t.Errorf("the jobs ran for %v, want 4 slots: the clock is checked as a job starts", got)
	}
	for _, want := range []string{
		`level=WARN msg="this host's clock is 1m30s ahead of the ledger server's (PostgreSQL at the test's ledger): heartbeats are judged by the hosts' clocks, so a skew near --lease 1m makes hosts take live runs for dead and run their slots twice; keep every host on NTP" event=warning`,
		`level=WARN msg="this host's clock is 1m30s behind the ledger server's`,
	} {
		if !strings.Contains(r.logs.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, r.logs.String())
		}
	}
}
