package daemon

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestFireDuringAScanThatLeavesSlotsOwed: a fire that comes while its
// task's scan runs (at start, a rescan) waits for that scan before it
// looks for owed slots. It looked first, found none, waited for the turn,
// and the scan then left slots owed behind a slot held by a run still
// running (another daemon's): the fire of a --wait line waited for that
// run and ran its slot before the owed ones (seen with two replicas on
// PostgreSQL: 03:33 ran before 03:23 to 03:32). Serial: it looks for its
// fire's goroutine among all goroutines.
func TestFireDuringAScanThatLeavesSlotsOwed(t *testing.T) {
	for name, open := range replicaLedgers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			st, db := open(t, dir)
			now := time.Date(2026, 3, 1, 9, 59, 30, 0, time.UTC)
			lockDir := replicaLockDir(st, dir)
			r1 := newReplica(t, st, db, dir, lockDir("r1"), "r1", &now)
			r2 := newReplica(t, st, db, dir, lockDir("r2"), "r2", &now)
			r1.load(t, "* * * * *")
			r2.load(t, "* * * * *")
			var clock atomic.Int64 // the test moves the clock while the loop reads it
			set := func(at time.Time) { clock.Store(at.UnixNano()) }
			for _, r := range []*replica{r1, r2} {
				r.d.cfg.Machine.Now = func() time.Time { return time.Unix(0, clock.Load()).UTC() }
				r.d.cfg.Machine.Lease = time.Hour // the clock jumps minutes: no live run looks dead
				r.d.cfg.Rate = 600
			}
			hold := []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_HOST" >> fires.log
if [ "$CATCHUP_HOST" = r2 ]; then while [ ! -e release ]; do sleep 0.02; done; fi`}
			r1.task.Req.Argv, r2.task.Req.Argv = hold, hold
			r1.task.Req.Wait = true // --wait: no limit
			fires := func() string { b, _ := os.ReadFile(filepath.Join(dir, "fires.log")); return string(b) }
			waitFor := func(what string, cond func() bool) {
				t.Helper()
				for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
					if time.Now().After(deadline) {
						buf := make([]byte, 1<<20)
						t.Fatalf("gave up after 30s waiting for %s; fires:\n%sr1's log:\n%s\n%s", what, fires(), r1.logs.String(), buf[:runtime.Stack(buf, true)])
					}
				}
			}
			at := func(m int) time.Time { return time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC) }
			release := func() { os.WriteFile(filepath.Join(dir, "release"), nil, 0o600) }
			t.Cleanup(release)

			// r2 runs 10:00 and holds it: the slot is held by a run still running.
			set(at(0).Add(time.Second))
			r2done := make(chan struct{})
			go func() { defer close(r2done); r2.d.fire(context.Background(), r2.task, at(0)) }()
			waitFor("r2's 10:00 job", func() bool { return strings.Contains(fires(), "10:00:00Z r2") })

			// r1 starts at 10:01:30; its start scan (10:01 missed behind 10:00)
			// waits for a place to plan while 10:02's fire comes.
			start := at(1).Add(30 * time.Second)
			set(start)
			r1.d.cfg.Rule.FiredAfter, r1.d.cfg.Rule.MaxAge, r1.d.cfg.Rescan = start, 24*time.Hour, 0
			for range scansAtOnce {
				r1.d.planners <- struct{}{}
			}
			lctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			through := new(progress)
			done := make(chan struct{})
			go func() { defer close(done); r1.d.loop(context.Background(), lctx, r1.task, start, through) }()
			waitFor("r1's start scan to wait for a place to plan", func() bool { return goroutineIn("(*Daemon).plan(") })
			set(at(2))
			waitFor("r1's loop to fire 10:02", func() bool { return !through.get().Before(at(2)) })
			waitFor("r1's 10:02 fire to wait for the start scan", func() bool {
				return goroutineIn("(*Daemon).fireInTurn(", "RLock(") || goroutineIn("(*scanWatch).wait(")
			})
			for range scansAtOnce {
				<-r1.d.planners
			}
			// The scan leaves 10:01 owed behind 10:00. The fire either
			// goes behind it too (its slot left to the rescans: skip) or
			// waits for the lock to run 10:02 (in firePlaced).
			waitFor("r1's 10:02 fire to go behind 10:01 or to fire", func() bool {
				return !through.skippedThrough().Before(at(2)) || goroutineIn("(*Daemon).firePlaced(")
			})
			release()
			<-r2done
			set(at(3))
			waitFor("r1's 10:03 job", func() bool { return strings.Contains(fires(), "10:03:00Z r1") })
			cancel()
			<-done
			r1.d.fires.Wait()
			want := "2026-03-01T10:00:00Z r2\n2026-03-01T10:01:00Z r1\n2026-03-01T10:02:00Z r1\n2026-03-01T10:03:00Z r1\n"
			if got := fires(); got != want {
				t.Errorf("the jobs ran for\n%swant\n%sr1's log:\n%s", got, want, r1.logs.String())
			}
		})
	}
}

// goroutineIn reports whether a goroutine's stack holds every one of
// frames.
func goroutineIn(frames ...string) bool {
	buf := make([]byte, 1<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		all := true
		for _, f := range frames {
			all = all && strings.Contains(g, f)
		}
		if all {
			return true
		}
	}
	return false
}
