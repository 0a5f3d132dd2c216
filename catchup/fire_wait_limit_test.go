package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestWaitLimitCountsFromTheFiresStart: --wait DUR bounds a fire from its
// start (RunRequest.Started, set by cmd as catchup run starts), not from
// the moment it began waiting for the lock: the time the fire spent before
// (opening the ledger, a busy SQLite ledger, connecting to a shared one) is
// part of DUR. Each case holds the task's lock for the whole fire and
// checks that the fire gives up no earlier than Started+DUR and well
// before Started+DUR plus the whole DUR again, which today's code waited.
func TestWaitLimitCountsFromTheFiresStart(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		limit time.Duration // --wait DUR
		spent time.Duration // how long before Run the fire started
		said  string        // DUR as its notice says it (as it is written: 10m, not 10m0s)
	}{
		"a fire that spent longer than DUR before its wait gives up at once": {limit: 10 * time.Minute, spent: time.Hour, said: "10m"},
		"a fire that spent most of DUR waits only for what is left":          {limit: 10 * time.Minute, spent: 10*time.Minute - 300*time.Millisecond, said: "10m"},
		"no start given: DUR counts from the call (the daemon's fires)":      {limit: 300 * time.Millisecond, said: "300ms"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			lock, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
			if err != nil {
				t.Fatal(err)
			}
			defer lock.close()
			if ok, err := lock.tryLock(); !ok || err != nil {
				t.Fatalf("tryLock = %v, %v", ok, err)
			}
			var notices []string
			f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
			req := f.request(t)
			req.Wait, req.WaitLimit = true, tc.limit
			called := time.Now()
			if tc.spent > 0 {
				req.Started = called.Add(-tc.spent)
			}
			start := req.Started
			if start.IsZero() {
				start = called
			}
			giveUp := start.Add(tc.limit) // no earlier than this
			// Stopped 10 s after the later of the call and giveUp: a generous
			// margin for a loaded machine, never reached by a fire that counts
			// right, and well before the whole DUR again (10 minutes).
			late := giveUp
			if late.Before(called) {
				late = called
			}
			late = late.Add(10 * time.Second)
			ctx, cancel := context.WithDeadline(context.Background(), late)
			defer cancel()
			type result struct {
				res RunResult
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, err := Run(ctx, f.st, nil, f.m, req)
				done <- result{res, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(time.Until(late) + 5*time.Second):
				t.Fatalf("--wait %s: the fire still waits %s after its start (it counts DUR from its lock wait, not from its start)",
					tc.limit, time.Since(start).Round(time.Millisecond))
			}
			ended := time.Now()
			if ctx.Err() != nil {
				t.Fatalf("--wait %s: the fire gave up only when stopped, %s after its start (it counts DUR from its lock wait, not from its start)",
					tc.limit, ended.Sub(start).Round(time.Millisecond))
			}
			if r.err != nil || r.res.ExitCode != exitLocked || r.res.Ran || !r.res.Skipped {
				t.Fatalf("Run = %+v, %v; want a lock skip, exit %d", r.res, r.err, exitLocked)
			}
			if ended.Before(giveUp) {
				t.Errorf("gave up %s after its start, before --wait %s ran out", ended.Sub(start), tc.limit)
			}
			rec, err := f.st.Run(context.Background(), r.res.Run.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Status != store.StatusSkipped || rec.Error != reasonLocked || exitText(rec.ExitCode) != "75" {
				t.Errorf("recorded %s %q exit %s; want a lock skip with exit 75 (scan replays its slot)", rec.Status, rec.Error, exitText(rec.ExitCode))
			}
			want := fmt.Sprintf("task job is still running after waiting %s (--wait); skipped, exit 75", tc.said)
			if !strings.Contains(strings.Join(notices, "\n"), want) {
				t.Errorf("notices %q, want %q", notices, want)
			}
			if runs := f.job.runs(t); runs != nil {
				t.Errorf("the job ran beside the lock holder: %q", runs)
			}
		})
	}
}

// TestSpentWaitLimitStillGivesTheLockItsMoment: a --wait fire whose DUR
// has passed before it found the lock held (a slow ledger open) gives the
// lock the moment any fire gives it (lockGrace) before it counts as held:
// a lock held for a moment (a reader telling a dead record from a live
// one, a replay's child between fork and exec) is not a running task. A
// fire without --wait runs there; a --wait fire must not do worse and
// lock-skip its slot. The lock is released 100 ms after the fire starts,
// well within lockGrace.
func TestSpentWaitLimitStillGivesTheLockItsMoment(t *testing.T) {
	t.Parallel()
	for name, wait := range map[string]bool{"without --wait": false, "--wait 10m, spent before its wait": true} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			lock, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
			if err != nil {
				t.Fatal(err)
			}
			defer lock.close()
			if ok, err := lock.tryLock(); !ok || err != nil {
				t.Fatalf("tryLock = %v, %v", ok, err)
			}
			req := f.request(t)
			if wait {
				req.Wait, req.WaitLimit = true, 10*time.Minute
				req.Started = time.Now().Add(-time.Hour)
			}
			released := make(chan struct{})
			go func() {
				time.Sleep(100 * time.Millisecond) // a moment, well within lockGrace
				lock.close()
				close(released)
			}()
			res := f.run(t, req)
			<-released
			if !res.Ran || res.ExitCode != 0 {
				t.Fatalf("Run = %+v; want the slot run: the lock was held only for a moment (%s)", res, lockGrace)
			}
		})
	}
}
