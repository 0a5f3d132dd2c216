package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestFiresHeldBehindReplaysRunInSlotOrder: the fires of a task that came
// while its own replays ran (a restart with a backlog) run one after
// another, oldest first, once the replays end. Released together, they
// met each other's lock: one ran, the daemon's next fire was a lock skip
// (exit 75) of its own fire, and its slot was replayed only after later
// slots had run: out of order, for a job that settles [PREV_SLOT, SLOT).
func TestFiresHeldBehindReplaysRunInSlotOrder(t *testing.T) {
	t.Parallel()
	down := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", down)
	// The replays wait for the file release; every run lasts 0.3 s, so
	// that two fires released at once overlap.
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log
if [ "$CATCHUP_TRIGGER" = replay ]; then while [ ! -e release ]; do sleep 0.02; done; fi
sleep 0.3`}
	started := down.Add(3 * time.Minute) // 10:03:30: 10:01, 10:02, 10:03 are the start's replays
	set := f.movableClock(started)
	f.d.cfg.Rule.FiredAfter = started
	f.d.cfg.Rule.MaxAge = 24 * time.Hour

	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	through := new(progress)
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, started, through) }()
	waitFor := f.waiter(t)
	waitFor("the first replay", func() bool { return strings.Contains(f.fires(), "10:01:00Z replay") })
	// While the replays run, the fires of 10:04 and 10:05 come, one at a time.
	for _, slot := range []time.Time{started.Add(30 * time.Second), started.Add(90 * time.Second)} {
		// The clock at the slot itself, not past it: read by the loop just
		// after the fire before (this wait sees it before that read), a
		// clock past the next slot is a loop fallen behind, which leaves the
		// slot to a replay (a flaky CI run: 10:04 replayed, not fired).
		set(slot)
		waitFor("the loop to fire "+slot.Format(time.Kitchen), func() bool { return !through.get().Before(slot) })
	}
	if err := os.WriteFile(filepath.Join(f.dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	want := "2026-03-01T10:01:00Z replay\n2026-03-01T10:02:00Z replay\n2026-03-01T10:03:00Z replay\n" +
		"2026-03-01T10:04:00Z schedule\n2026-03-01T10:05:00Z schedule\n"
	var runs []store.Run
	waitFor("the two fires to end", func() bool {
		var err error
		if runs, err = f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100}); err != nil {
			t.Fatal(err)
		}
		ended := 0
		for _, r := range runs {
			if r.Status != store.StatusRunning {
				ended++
			}
		}
		return ended >= 5
	})
	cancel()
	<-done
	f.d.fires.Wait()
	f.checkRanInOrder(t, want, runs)
}

// movableClock makes f's daemon read a clock the test sets (the returned
// func), starting at start, and read it again every 50 ms or so.
func (f *fireFixture) movableClock(start time.Time) func(time.Time) {
	var clock atomic.Int64 // the test moves the clock while the loop reads it
	f.d.cfg.Machine.Now = func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	f.d.cfg.Rate = 600
	set := func(t time.Time) { clock.Store(t.UnixNano()) }
	set(start)
	return set
}

// waiter returns a wait for a condition, with a 30 s deadline after which
// the test fails naming what never happened, with f's fires and log.
func (f *fireFixture) waiter(t *testing.T) func(what string, cond func() bool) {
	return func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("gave up after 30s waiting for %s; fires:\n%slog:\n%s", what, f.fires(), f.logs.String())
			}
		}
	}
}

// runsEnded returns a condition for waiter: at least n of the task's runs
// have ended (none of them still running).
func (f *fireFixture) runsEnded(t *testing.T, n int) func() bool {
	return func() bool {
		runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: f.task.Def.Name, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		ended := 0
		for _, r := range runs {
			if r.Status != store.StatusRunning {
				ended++
			}
		}
		return ended >= n
	}
}

// checkRanInOrder checks that the job ran for the slots of want, in its
// order, and that every run of runs succeeded: none was a lock skip of the
// daemon's own fire.
func (f *fireFixture) checkRanInOrder(t *testing.T, want string, runs []store.Run) {
	t.Helper()
	if got := f.fires(); got != want {
		t.Errorf("the job ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
	}
	for _, r := range runs {
		if r.Status != store.StatusSucceeded {
			t.Errorf("run %d of slot %s: %s %s %q; want every run succeeded, no lock skip", r.ID, r.Slot.Format(time.RFC3339), r.Trigger, r.Status, r.Error)
		}
	}
}
