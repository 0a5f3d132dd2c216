package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/postgres"
)

// TestPostgresLockTask: a task's fleet-wide lock is held by a run while it
// is running and its heartbeat is fresher than the lease; it holds no
// connection meanwhile; Close gives back the locks still held.
func TestPostgresLockTask(t *testing.T) {
	dsn := pgLedger(t)
	a, b := openPG(t, dsn), openPG(t, dsn)
	ctx := t.Context()
	run := func(s *postgres.Ledger, task string) int64 {
		t.Helper()
		return mustClaim(t, s, store.Run{Task: task, Trigger: store.TriggerManual, StartedAt: t0, Host: "h"})
	}
	lock := func(s *postgres.Ledger, task string, id int64, now time.Time, want bool) func() {
		t.Helper()
		release, ok, err := s.LockTask(ctx, store.TaskLock{Task: task, RunID: id, Now: now, Lease: time.Minute})
		if err != nil {
			t.Fatalf("LockTask(%s, run %d): %v", task, id, err)
		}
		if ok != want {
			t.Fatalf("LockTask(%s, run %d) ok = %v, want %v", task, id, ok, want)
		}
		if release == nil {
			t.Fatalf("LockTask(%s) returned a nil release", task)
		}
		return release
	}
	soon := t0.Add(time.Second)
	// refused: a run refused the lock gives its claim back (a lock skip),
	// as catchup does; else, running and fresh, it would go first.
	refused := func(s *postgres.Ledger, task string, id int64) {
		t.Helper()
		lock(s, task, id, soon, false)()
		finish(t, s, id, store.StatusSkipped, soon)
	}
	backupA, backupB, backupA2 := run(a, "backup"), run(b, "backup"), run(a, "backup")
	relA := lock(a, "backup", backupA, soon, true)
	lock(b, "backup", backupB, soon, false)() // waits (a fire with --wait)
	refused(a, "backup", backupA2)            // a second run on the same host is excluded too
	rotateB := run(b, "rotate")
	relB := lock(b, "rotate", rotateB, soon, true)
	finish(t, a, backupA, store.StatusSucceeded, soon)
	relA()
	relA() // releasing twice is harmless
	relB2 := lock(b, "backup", backupB, soon, true)
	refused(a, "rotate", run(a, "rotate"))
	finish(t, b, rotateB, store.StatusSucceeded, soon)
	relB()
	finish(t, b, backupB, store.StatusSucceeded, soon)
	relB2()
	lock(a, "rotate", run(a, "rotate"), soon, true)()

	// A holder that ended (its outcome recorded, the release lost) or whose
	// heartbeat is older than the lease no longer holds the lock.
	ended := run(a, "report")
	lock(a, "report", ended, soon, true)
	finish(t, a, ended, store.StatusSucceeded, soon)
	lock(b, "report", run(b, "report"), soon, true)
	stale := run(a, "audit")
	lock(a, "audit", stale, soon, true)
	lock(b, "audit", run(b, "audit"), t0.Add(30*time.Second), false)
	lock(b, "audit", run(b, "audit"), t0.Add(2*time.Minute), true)

	// Close gives the locks still held back.
	// (The taker claimed before the holder, of a later slot: a holder's
	// run still running after it let go would hold a later claim back as
	// a waiting one, and an earlier claim of an earlier slot held the
	// holder back.)
	slotRun := func(s *postgres.Ledger, slot time.Time) int64 {
		t.Helper()
		return mustClaim(t, s, store.Run{Task: "sync", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: t0, Host: "h"})
	}
	early := slotRun(a, t0.Truncate(time.Hour).Add(time.Hour))
	c := openPG(t, dsn)
	lock(c, "sync", slotRun(c, t0.Truncate(time.Hour)), soon, true)
	lock(a, "sync", early, soon, false)
	c.Close()
	lock(a, "sync", early, soon, true)()

	// A ledger in another schema of the same database is another fleet.
	other := openPG(t, pgLedger(t))
	rel := lock(a, "backup", run(a, "backup"), soon, true)
	lock(other, "backup", run(other, "backup"), soon, true)()
	rel()
}

func TestPostgresHeartbeat(t *testing.T) {
	s := openPG(t, pgLedger(t))
	ctx := t.Context()
	started := t0.Add(250 * time.Millisecond)
	id := mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: started})
	heartbeat := func() time.Time {
		t.Helper()
		running, err := s.Running(ctx)
		if err != nil || len(running) != 1 || running[0].ID != id {
			t.Fatalf("Running = %+v, %v", running, err)
		}
		return running[0].Heartbeat
	}
	if hb := heartbeat(); !hb.Equal(started) || hb.Location() != time.UTC {
		t.Errorf("heartbeat after claim = %v, want the start %v", hb, started)
	}
	beat := t0.Add(10*time.Second + 7*time.Millisecond)
	if err := s.Heartbeat(ctx, id, beat); err != nil {
		t.Fatal(err)
	}
	if hb := heartbeat(); !hb.Equal(beat) {
		t.Errorf("heartbeat = %v, want %v", hb, beat)
	}
	finish(t, s, id, store.StatusSucceeded, t0.Add(time.Minute))
	if err := s.Heartbeat(ctx, id, t0.Add(time.Hour)); !errors.Is(err, store.ErrNotRunning) {
		t.Errorf("Heartbeat(finished) = %v, want ErrNotRunning", err)
	}
	if got := getRun(t, s, id); !got.Heartbeat.Equal(beat) {
		t.Errorf("heartbeat of a finished run moved to %v", got.Heartbeat)
	}
	if err := s.Heartbeat(ctx, 999999, t0); !errors.Is(err, store.ErrNotRunning) {
		t.Errorf("Heartbeat(unknown) = %v, want ErrNotRunning", err)
	}
	if !s.Shared() {
		t.Error("Shared() = false")
	}
}

// PostgreSQL text holds neither NUL nor invalid UTF-8: an outcome whose
// error has them is still recorded, byte for byte.
func TestPostgresOddErrorText(t *testing.T) {
	s := openPG(t, pgLedger(t))
	id := mustClaim(t, s, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0})
	err := s.Finish(t.Context(), id, store.Outcome{Status: store.StatusFailed, EndedAt: t0, Error: "a\x00b\xffc ☃"})
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	if got := getRun(t, s, id).Error; got != "a\x00b\xffc ☃" {
		t.Errorf("Error = %q", got)
	}
	changed, err := s.Interrupt(t.Context(), mustClaim(t, s, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0}), t0, "\x00")
	if err != nil || !changed {
		t.Errorf("Interrupt = %v, %v", changed, err)
	}
}

// The server drops the ledger's connections (a restart, a failover): a call
// either succeeds on a new connection or fails with ErrLedgerUnreachable, and
// succeeds when repeated.
func TestPostgresConnectionLost(t *testing.T) {
	dsn := pgLedger(t)
	app := fmt.Sprintf("catchup_lost_%d", time.Now().UnixNano())
	s := openPG(t, dsn+"&application_name="+app)
	other := openPG(t, dsn)
	admin := pgAdmin(t, dsn)
	ctx := t.Context()
	kill := func() {
		t.Helper()
		var n int
		err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n)
		if err != nil || n == 0 {
			t.Fatalf("terminated %d connections: %v", n, err)
		}
	}
	id := mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
	release, ok, err := s.LockTask(ctx, store.TaskLock{Task: "backup", RunID: id, Now: t0, Lease: time.Minute})
	if err != nil || !ok {
		t.Fatalf("LockTask = %v, %v", ok, err)
	}
	defer release()
	getRun(t, s, id) // LockTask let go of its connections: open one to lose
	kill()
	time.Sleep(50 * time.Millisecond) // let the server drop them
	for try := 0; ; try++ {
		err := s.Finish(context.Background(), id, store.Outcome{Status: store.StatusSucceeded, EndedAt: t0.Add(time.Minute)})
		if err == nil {
			break
		}
		if !errors.Is(err, store.ErrLedgerUnreachable) || try == 5 {
			t.Fatalf("Finish after the connection was lost: %v", err)
		}
		t.Logf("try %d: %v", try, err)
	}
	if got := getRun(t, other, id); got.Status != store.StatusSucceeded {
		t.Errorf("status %s after the retried Finish", got.Status)
	}
	// The lock ended with its run: another host may take it.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) { // the server notices the lost connection
		next := mustClaim(t, other, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0})
		rel, ok, err := other.LockTask(ctx, store.TaskLock{Task: "backup", RunID: next, Now: t0, Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			rel()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the task lock outlived its connection")
		}
	}
	// A statement's own error is not a lost ledger.
	_, err = s.AddRun(ctx, store.Run{Task: "backup", Trigger: store.TriggerManual, Status: store.StatusSkipped, StartedAt: t0, ExitCode: intp(1 << 40)})
	if err == nil || errors.Is(err, store.ErrLedgerUnreachable) {
		t.Errorf("AddRun with an out-of-range exit code: %v", err)
	}
}
