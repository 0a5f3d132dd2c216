package daemon

import (
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestFireWaitingForTheLedgerIsSeen: a fire due while another process
// holds the ledger (SQLite: a second connection in BEGIN IMMEDIATE;
// PostgreSQL: LOCK TABLE runs) waits for it, but not in silence: once its
// first ledger write has waited ledgerWaitBound, the ledger counts as
// failing (catchup_daemon_ledger_failing_seconds from the fire's start)
// and one WARN line (event=ledger) says that fires wait for it; once the
// lock goes, the fire runs its slot once and the ledger counts as
// recording again. Before, the log said nothing and both alert metrics
// stayed 0 for as long as the lock was held, every task late.
func TestFireWaitingForTheLedgerIsSeen(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			st, db := replicaLedgers[name](t, dir)
			slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			now := slot.Add(-time.Minute)
			r := newReplica(t, st, db, dir, replicaLockDir(st, dir)("h1"), "h1", &now)
			r.load(t, "* * * * *")
			r.d.ledgerWaitBound = time.Second
			unlock := holdLedger(t, name, db)
			now = slot.Add(time.Second)
			done := make(chan struct{})
			go func() { r.d.fire(ctx, r.task, slot); close(done) }()
			deadline := time.Now().Add(20 * time.Second)
			for r.d.Lag().LedgerFailing <= 0 || !strings.Contains(r.logs.String(), "level=WARN") {
				if time.Now().After(deadline) {
					unlock()
					t.Fatalf("after 20s of a fire waiting for the ledger (bound 1s), Lag is %+v and the log:\n%s\nwant LedgerFailing > 0 and a WARN line",
						r.d.Lag(), r.logs.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			lag := r.d.Lag()
			if lag.LedgerFailing < time.Second {
				t.Errorf("LedgerFailing is %s; want it counted from the fire's start (at least the bound, 1s)", lag.LedgerFailing)
			}
			if got := ran(t, dir); len(got) != 0 {
				t.Errorf("the job ran while the ledger was held: %v", got)
			}
			time.Sleep(1500 * time.Millisecond) // the warning is said once, not at each bound
			unlock()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("the fire did not end within 30s of the lock going:\n%s", r.logs.String())
			}
			if got := ran(t, dir); got[slot.Format(time.RFC3339)] != 1 || len(got) != 1 {
				t.Errorf("once the lock went, the job ran %v; want its slot once", got)
			}
			logs := r.logs.String()
			warn := regexp.MustCompile(`(?m)^.*level=WARN msg="fires wait for the ledger.*event=ledger task=job slot=2026-03-01T10:00:00Z.*$`)
			if n := len(warn.FindAllString(logs, -1)); n != 1 {
				t.Errorf("the wait is warned of %d times; want once, naming the fire:\n%s", n, logs)
			}
			if !regexp.MustCompile(`msg="fires no longer wait for the ledger" event=ledger task=job`).MatchString(logs) {
				t.Errorf("the wait's end is not logged:\n%s", logs)
			}
			if lag := r.d.Lag(); lag.LedgerFailing != 0 || lag.FiresUnrecorded != 0 {
				t.Errorf("once the fire is recorded Lag is %+v; want LedgerFailing 0, FiresUnrecorded 0", lag)
			}
		})
	}
}

// holdLedger has another process's session hold the ledger db (of the
// backend name) as a backup tool or a migration would: unlock lets it go.
func holdLedger(t *testing.T, name, db string) (unlock func()) {
	t.Helper()
	ctx := context.Background()
	if name == "postgres" {
		conn, err := pgx.Connect(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "LOCK TABLE runs, boots IN ACCESS EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
		return sync.OnceFunc(func() { tx.Rollback(ctx); conn.Close(ctx) })
	}
	other, err := sql.Open("sqlite", "file:"+filepath.Clean(db))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return sync.OnceFunc(func() {
		if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Error(err)
		}
		conn.Close()
		other.Close()
	})
}

// TestScanWaitingForTheLedgerIsSeen: a task's scan (a rescan, its fires
// held behind it) whose sighting of this boot waits for a ledger another
// process holds is seen as TestFireWaitingForTheLedgerIsSeen's fire is:
// that was the write a real daemon's fires waited behind, in silence.
func TestScanWaitingForTheLedgerIsSeen(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			st, db := replicaLedgers[name](t, dir)
			slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			now := slot.Add(-time.Minute)
			r := newReplica(t, st, db, dir, replicaLockDir(st, dir)("h1"), "h1", &now)
			r.d.cfg.Machine.BootID = "boot-1"
			r.load(t, "* * * * *")
			r.d.ledgerWaitBound = time.Second
			unlock := holdLedger(t, name, db)
			defer unlock()
			now = slot.Add(30 * time.Second)
			done := make(chan struct{})
			go func() { r.d.scan(ctx, r.task, slot, time.Time{}); close(done) }()
			deadline := time.Now().Add(20 * time.Second)
			for r.d.Lag().LedgerFailing <= 0 || !strings.Contains(r.logs.String(), "level=WARN") {
				if time.Now().After(deadline) {
					unlock()
					t.Fatalf("after 20s of a scan waiting for the ledger (bound 1s), Lag is %+v and the log:\n%s\nwant LedgerFailing > 0 and a WARN line",
						r.d.Lag(), r.logs.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			unlock()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("the scan did not end within 30s of the lock going:\n%s", r.logs.String())
			}
			logs := r.logs.String()
			for _, want := range []string{
				`(?m)^.*level=WARN msg="fires wait for the ledger: the task's scan .*event=ledger task=job by=scan$`,
				`(?m)^.*level=INFO msg="fires no longer wait for the ledger" event=ledger task=job by=scan seconds=.*$`,
			} {
				if n := len(regexp.MustCompile(want).FindAllString(logs, -1)); n != 1 {
					t.Errorf("%d lines match %s; want one:\n%s", n, want, logs)
				}
			}
			if lag := r.d.Lag(); lag.LedgerFailing != 0 {
				t.Errorf("once the scan wrote, Lag is %+v; want LedgerFailing 0", lag)
			}
		})
	}
}

// TestFireWaitingForItsLockIsNoLedgerWait: a --on-busy wait fire that
// waits for its task's lock (the run before it still going) past the
// bound does not count as waiting for the ledger: no warning, and
// LedgerFailing stays 0.
func TestFireWaitingForItsLockIsNoLedgerWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", slot.Add(-time.Minute))
	// The bound is well under the lock's wait (the first job's 6 s) and
	// well over a ledger write on a loaded machine (500 ms was seen passed
	// at load 50 by the fire's own claim, waiting for CPU, not the ledger).
	f.d.ledgerWaitBound = 2 * time.Second
	slow := f.task
	slow.Req.Argv = []string{"/bin/sh", "-c", `sleep 6; echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log`}
	f.task.Req.OnBusy = "wait"
	*f.now = slot.Add(time.Second)
	first := make(chan struct{})
	go func() { f.d.fire(ctx, slow, slot); close(first) }()
	deadline := time.Now().Add(20 * time.Second)
	for f.d.Lag().Running == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the first fire's job never started:\n%s", f.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	*f.now = slot.Add(time.Minute + time.Second)
	waited := make(chan struct{})
	go func() { f.d.fire(ctx, f.task, slot.Add(time.Minute)); close(waited) }()
	for busy := true; busy; {
		select {
		case <-waited:
			busy = false
		case <-time.After(20 * time.Millisecond):
			if lag := f.d.Lag(); lag.LedgerFailing != 0 {
				t.Fatalf("a fire waiting for its task's lock counts as the ledger failing: %+v", lag)
			}
		}
	}
	<-first
	if got := f.fires(); got != "2026-03-01T10:00:00Z schedule\n2026-03-01T10:01:00Z schedule\n" {
		t.Errorf("the fires ran %q; want 10:00 then 10:01", got)
	}
	if strings.Contains(f.logs.String(), "wait for the ledger") {
		t.Errorf("a wait for the task's lock is said to be one for the ledger:\n%s", f.logs.String())
	}
}
