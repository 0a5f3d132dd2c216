package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// TestBusyWaitingLineStillRescans: a --wait line whose job outlasts its
// period is never idle: each fire waits for the task's lock while the one
// before it runs. A rescan waited for the task's fires to end, which never
// came, so a slot only a rescan finds missed (here one that failed, under
// --retry-failed; a replica's run found dead after the lease is another)
// starved behind ever newer fires, replayed only by the daemon's next
// start. Now the task's next fire runs the rescan first, once the fires
// before it have recorded their outcomes: the older slot runs before the
// newer ones, each slot once.
func TestBusyWaitingLineStillRescans(t *testing.T) {
	t.Parallel()
	for name, open := range replicaLedgers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			st, db := open(t, dir)
			start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
			now := start
			r := newReplica(t, st, db, dir, replicaLockDir(st, dir)("r1"), "r1", &now)
			r.load(t, "* * * * *")
			var clock atomic.Int64 // the test moves the clock while the loop reads it
			set := func(at time.Time) { clock.Store(at.UnixNano()) }
			set(start)
			r.d.cfg.Machine.Now = func() time.Time { return time.Unix(0, clock.Load()).UTC() }
			r.d.cfg.Machine.Lease = time.Hour // the clock jumps minutes: no live run looks dead
			r.d.cfg.Rate = 600
			r.d.cfg.Rescan = 20 * time.Millisecond
			r.d.cfg.Rule = catchup.MissedRule{MaxAge: 24 * time.Hour, Tolerance: 90 * time.Second, RetryFailed: true, FiredAfter: start}
			// 10:01's first run fails; every scheduled job then runs until
			// the test releases its slot (the next fire waits for the lock).
			job := []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log
if [ "$CATCHUP_SLOT" = 2026-03-01T10:01:00Z ] && [ ! -e failed-once ]; then touch failed-once; exit 3; fi
if [ "$CATCHUP_TRIGGER" = schedule ]; then while [ ! -e "release-$CATCHUP_SLOT" ]; do sleep 0.02; done; fi`}
			r.task.Def.Argv, r.task.Req.Argv = job, job
			r.task.Req.Wait = true // --wait: no limit
			fires := func() string { b, _ := os.ReadFile(filepath.Join(dir, "fires.log")); return string(b) }
			waitFor := func(what string, cond func() bool) {
				t.Helper()
				for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("gave up after 30s waiting for %s; fires:\n%slog:\n%s", what, fires(), r.logs.String())
					}
				}
			}
			release := func(slot time.Time) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(dir, "release-"+slot.Format(time.RFC3339)), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			at := func(m int) time.Time { return time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC) }
			t.Cleanup(func() { // a job still waiting ends with the test
				for m := 1; m <= 12; m++ {
					release(at(m))
				}
			})

			lctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			through := new(progress)
			done := make(chan struct{})
			go func() { defer close(done); r.d.loop(context.Background(), lctx, r.task, start, through) }()
			set(at(1))
			waitFor("10:01's run to fail", func() bool {
				runs, err := st.History(context.Background(), store.HistoryFilter{Task: "job", Limit: 10})
				return err == nil && len(runs) == 1 && runs[0].Status == store.StatusFailed
			})
			// From 10:02 on the task is never idle: each slot's fire is
			// counted before the job of the slot before it is released.
			// 10:01 is missed from 10:02:30 (--tolerance 90s), once it is.
			set(at(2))
			waitFor("10:02's job", func() bool { return strings.Contains(fires(), "10:02:00Z schedule") })
			replayed := false
			for m := 3; m <= 10 && !replayed; m++ {
				set(at(m))
				waitFor("the loop to fire "+at(m).Format(time.Kitchen), func() bool { return !through.get().Before(at(m)) })
				release(at(m - 1))
				waitFor(at(m).Format(time.Kitchen)+"'s job", func() bool { return strings.Contains(fires(), at(m).Format(time.RFC3339)+" schedule") })
				replayed = strings.Contains(fires(), "10:01:00Z replay")
			}
			if !replayed {
				t.Fatalf("10:01, failed and missed (--retry-failed) since 10:02:30, was not replayed while the task's fires ran on to 10:10:\n%slog:\n%s",
					fires(), r.logs.String())
			}
			cancel()
			<-done
			for m := 1; m <= 12; m++ {
				release(at(m))
			}
			r.d.fires.Wait()
			// Each slot once (10:01 twice: its failure and its replay), the
			// scheduled ones in slot order, the replay before the fire
			// that ran it first.
			lines := strings.Split(strings.TrimSpace(fires()), "\n")
			var prev string
			seen := map[string]bool{}
			for i, l := range lines {
				if seen[l] {
					t.Errorf("%q ran twice:\n%s", l, fires())
				}
				seen[l] = true
				if l == "2026-03-01T10:01:00Z replay" {
					if i+1 < len(lines) && !strings.HasSuffix(lines[i+1], " schedule") {
						t.Errorf("after 10:01's replay %q, not a fire:\n%s", lines[i+1], fires())
					}
					continue
				}
				if l <= prev {
					t.Errorf("%q ran after %q:\n%s", l, prev, fires())
				}
				prev = l
			}
		})
	}
}
