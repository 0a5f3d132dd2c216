package catchup

import (
	"context"
	"sync"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestConcurrentProbesAllSeeADeadRun: a daemon's scans of several tasks
// each look for dead runs among every task's (findStale), at once at its
// start. A probe holds the dead run's task lock while it checks it; before,
// another probe of the same run meanwhile found that lock held and took
// the run for alive: its scan read the slot still held, and replayed it
// only at the next rescan, a minute later (found by the daemon script
// daemon_reload_held_old_slot_killed, which then took about 60 s now and
// then). Every probe finds it dead.
func TestConcurrentProbesAllSeeADeadRun(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	dead := store.Run{Task: "job", Slot: mustTime(t, "2026-03-01T10:00:00Z"), Trigger: store.TriggerSchedule, Attempt: 1,
		Status: store.StatusRunning, StartedAt: f.now, Host: f.m.Host, BootID: f.m.BootID, PID: 1 << 22}
	id, err := f.st.AddRun(context.Background(), dead)
	if err != nil {
		t.Fatal(err)
	}
	const probers, rounds = 8, 50
	var wg sync.WaitGroup
	missed := make(chan int, probers*rounds)
	for range probers {
		wg.Go(func() {
			for i := range rounds {
				stale, err := findStale(context.Background(), f.st, f.m, false)
				if err != nil {
					t.Error(err)
					return
				}
				if !stale[id] {
					missed <- i
				}
			}
		})
	}
	wg.Wait()
	close(missed)
	if n := len(missed); n > 0 {
		t.Errorf("%d of %d probes took the dead run %d for alive (its lock held by another probe)", n, probers*rounds, id)
	}
}
