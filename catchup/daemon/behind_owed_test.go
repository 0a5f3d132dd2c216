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

// TestBehindScanLeavesSlotsOwed: a replica frozen past several slots (a
// VM resumed, the clock stepped ahead) fires the first late and its scan
// replays the skipped ones, but stops at a slot another replica's run
// still holds, leaving the later ones missed. They are owed: the task's
// next fire replays them first, and runs its own slot only after them.
// Before, that scan's "left" was dropped: the next fire ran its slot
// first (seen with two replicas on PostgreSQL, one thawed: 22:59 ran
// before 22:52 to 22:58), and under --rescan 0 they waited for the next
// start. Serial: it looks for the loop's goroutine among all goroutines.
func TestBehindScanLeavesSlotsOwed(t *testing.T) {
	for name, open := range replicaLedgers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			st, db := open(t, dir)
			now := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
			lockDir := replicaLockDir(st, dir)
			r1 := newReplica(t, st, db, dir, lockDir("r1"), "r1", &now)
			r2 := newReplica(t, st, db, dir, lockDir("r2"), "r2", &now)
			r1.load(t, "* * * * *")
			r2.load(t, "* * * * *")
			var clock atomic.Int64 // the test moves the clock while the loop reads it
			set := func(at time.Time) { clock.Store(at.UnixNano()) }
			set(now)
			for _, r := range []*replica{r1, r2} {
				r.d.cfg.Machine.Now = func() time.Time { return time.Unix(0, clock.Load()).UTC() }
				r.d.cfg.Machine.Lease = time.Hour // the clock jumps minutes: no live run looks dead
				r.d.cfg.Rate = 6                  // the loop sleeps 5 s for 10:01: time to set r2's run up
			}
			hold := []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_HOST" >> fires.log
if [ "$CATCHUP_HOST" = r2 ]; then while [ ! -e release ]; do sleep 0.02; done; fi`}
			r1.task.Req.Argv, r2.task.Req.Argv = hold, hold
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

			r1.d.cfg.Rule.FiredAfter, r1.d.cfg.Rule.MaxAge, r1.d.cfg.Rescan = now, 24*time.Hour, 0
			lctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() { defer close(done); r1.d.loop(context.Background(), lctx, r1.task, now, new(progress)) }()
			waitFor("r1's loop to sleep until 10:01", func() bool {
				return goroutineIn("(*Daemon).loop(") && !goroutineIn("(*Daemon).scan(")
			})

			// r1 frozen: r2 runs 10:03 and holds it, the clock goes on to 10:05:30.
			set(at(3).Add(time.Second))
			r2done := make(chan struct{})
			go func() { defer close(r2done); r2.d.fire(context.Background(), r2.task, at(3)) }()
			waitFor("r2's 10:03 job", func() bool { return strings.Contains(fires(), "10:03:00Z r2") })
			set(at(5).Add(30 * time.Second))

			// r1 thawed: 10:01 fired late, 10:02 replayed, 10:04 and 10:05 left behind 10:03.
			waitFor("r1's scan to stop at r2's 10:03", func() bool {
				return strings.Contains(r1.logs.String(), "is held by run") && !goroutineIn("(*Daemon).scan(")
			})
			release()
			<-r2done
			set(at(6))
			waitFor("r1's 10:06 job", func() bool { return strings.Contains(fires(), "10:06:00Z r1") })
			cancel()
			<-done
			r1.d.fires.Wait()
			want := "2026-03-01T10:03:00Z r2\n2026-03-01T10:01:00Z r1\n2026-03-01T10:02:00Z r1\n" +
				"2026-03-01T10:04:00Z r1\n2026-03-01T10:05:00Z r1\n2026-03-01T10:06:00Z r1\n"
			if got := fires(); got != want {
				t.Errorf("the jobs ran for\n%swant\n%sr1's log:\n%s", got, want, r1.logs.String())
			}
		})
	}
}
