package postgres_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestLockTaskGoesToTheOldestWaitingClaim: a run that claimed its slot and
// waits for the task's lock (its heartbeats fresh) is not passed by a later
// claim of a later slot when the lock comes free: a host whose own fires
// queue behind its running job (they take its flock the moment the job
// exits) would otherwise take the lock again and again while another
// host's older slot, polling once a second, starves. An older slot's
// claim made later (a replay) still goes first; a waiter that stopped
// beating, or was given back, no longer holds anyone back.
func TestLockTaskGoesToTheOldestWaitingClaim(t *testing.T) {
	s := openPG(t, pgLedger(t))
	ctx := t.Context()
	lease := time.Minute
	claim := func(slot time.Time) int64 {
		t.Helper()
		return mustClaim(t, s, store.Run{Task: "settle", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: t0, Host: "h"})
	}
	lock := taskLocker(t, s, lease)
	slot := func(min int) time.Time { return t0.Truncate(time.Hour).Add(time.Duration(min) * time.Minute) }
	soon := t0.Add(time.Second)

	holder := claim(slot(0))
	release := lock(holder, soon, true)
	waiter := claim(slot(1)) // another host's fire of 10:01, waiting
	lock(waiter, soon, false)
	finish(t, s, holder, store.StatusSucceeded, soon)
	release()
	later := claim(slot(2)) // the holder's host's next fire, the lock free now
	lock(later, soon, false)
	if err := s.Heartbeat(ctx, waiter, soon); err != nil {
		t.Fatal(err)
	}
	releaseWaiter := lock(waiter, soon, true)
	lock(later, soon, false) // held by the waiter now
	finish(t, s, waiter, store.StatusSucceeded, soon)
	releaseWaiter()
	lock(later, soon, true)()
	finish(t, s, later, store.StatusSucceeded, soon)

	// A replay of an older slot, claimed after a fire that waits, is not
	// held back by it.
	waiting := claim(slot(5))
	replay := claim(slot(3))
	releaseReplay := lock(replay, soon, true)
	lock(waiting, soon, false)
	finish(t, s, replay, store.StatusSucceeded, soon)
	releaseReplay()
	lock(waiting, soon, true)()
	finish(t, s, waiting, store.StatusSucceeded, soon)

	// A waiter whose heartbeat stopped (its host froze or died) holds no
	// one back once its heartbeat is older than the lease; within it, it
	// does, as a holder would: a waiter on a host whose clock lags by less
	// than the lease is alive.
	frozen := claim(slot(6))
	next := claim(slot(7))
	lock(next, soon, false)
	lock(next, t0.Add(50*time.Second), false)
	lock(next, t0.Add(2*time.Minute), true)()
	finish(t, s, next, store.StatusSucceeded, soon)

	// A waiter given back (its skip recorded) holds no one back.
	finish(t, s, frozen, store.StatusSkipped, soon)
	lock(claim(slot(8)), soon, true)()
}

// TestLockTaskShortLeaseKeepsTheOrder: with a lease under a second (here
// 500 ms) a waiting claim, which beats each time it tries the lock (every
// second), was judged by the lease and taken for gone between two tries:
// a later claim took the lock the waiter's older slot waited for. The
// window is never shorter than waitingFresh; past it, a waiter that
// stopped holds no one back.
func TestLockTaskShortLeaseKeepsTheOrder(t *testing.T) {
	s := openPG(t, pgLedger(t))
	ctx := t.Context()
	lease := 500 * time.Millisecond
	lock := taskLocker(t, s, lease)
	slot := func(min int) time.Time { return t0.Truncate(time.Hour).Add(time.Duration(min) * time.Minute) }
	claim := func(min int) int64 {
		t.Helper()
		return mustClaim(t, s, store.Run{Task: "settle", Slot: slot(min), Trigger: store.TriggerSchedule, StartedAt: t0, Host: "h"})
	}
	holder := claim(0)
	release := lock(holder, t0, true)
	waiter := claim(1)
	if err := s.Heartbeat(ctx, waiter, t0); err != nil { // it tried, and beat
		t.Fatal(err)
	}
	finish(t, s, holder, store.StatusSucceeded, t0)
	release()
	later := claim(2)
	lock(later, t0.Add(900*time.Millisecond), false) // the waiter's next try is due in 100 ms
	lock(later, t0.Add(11*time.Second), true)()      // it stopped trying: gone
}

// taskLocker takes task settle's lock for run id at now with the lease,
// failing the test unless ok is want; it returns the release.
func taskLocker(t *testing.T, s store.Store, lease time.Duration) func(id int64, now time.Time, want bool) func() {
	return func(id int64, now time.Time, want bool) func() {
		t.Helper()
		release, ok, err := s.LockTask(t.Context(), store.TaskLock{Task: "settle", RunID: id, Now: now, Lease: lease})
		if err != nil {
			t.Fatalf("LockTask(run %d): %v", id, err)
		}
		if ok != want {
			t.Fatalf("LockTask(run %d) at %s: ok = %v, want %v", id, now.Format("15:04:05.000"), ok, want)
		}
		return release
	}
}
