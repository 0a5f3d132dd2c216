package daemon

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// TestLockSkippedFireRunsBeforeTheNextFire: a fire of the daemon that
// found its task's lock held by another run (another replica's, or a run
// by hand) and ran nothing is replayed before the task's next fire, with
// no wait for --tolerance, also under --rescan 0. Before, the next fires
// ran on time and the skipped slot waited out the tolerance for the next
// rescan (with --rescan 0, for the next start): newer slots ran first.
func TestLockSkippedFireRunsBeforeTheNextFire(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 3, 30, 0, time.UTC)
	f := heldLockLoop(t, start)
	waitFor := f.waiter(t)
	runs := func() []store.Run {
		r, err := f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// 10:04's fire finds the lock held: recorded skipped, nothing run.
	f.set(time.Date(2026, 3, 1, 10, 4, 5, 0, time.UTC))
	waitFor("10:04's fire to be lock-skipped", func() bool {
		for _, r := range runs() {
			if r.Status == store.StatusSkipped && r.Slot.Equal(time.Date(2026, 3, 1, 10, 4, 0, 0, time.UTC)) {
				return true
			}
		}
		return false
	})
	f.release(t)
	// 10:05's fire comes a minute later, well within the tolerance.
	f.set(time.Date(2026, 3, 1, 10, 5, 5, 0, time.UTC))
	waitFor("10:05's fire", func() bool { return strings.Contains(f.fires(), "10:05:00Z schedule") })
	f.stop()
	want := "2026-03-01T10:04:00Z replay\n2026-03-01T10:05:00Z schedule\n"
	if got := f.fires(); got != want {
		t.Errorf("the job ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
	}
}

// TestOwedSlot: the latest slot noted wins, take clears it.
func TestOwedSlot(t *testing.T) {
	t.Parallel()
	at := func(m int) time.Time { return time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC) }
	for name, tc := range map[string]struct {
		noted []time.Time
		want  time.Time
		ok    bool
	}{
		"none":                 {nil, time.Time{}, false},
		"one":                  {[]time.Time{at(4)}, at(4), true},
		"a later one wins":     {[]time.Time{at(4), at(6)}, at(6), true},
		"an earlier one loses": {[]time.Time{at(6), at(4)}, at(6), true},
	} {
		t.Run(name, func(t *testing.T) {
			var o owedSlot
			for _, s := range tc.noted {
				o.note(s)
			}
			got, ok := o.take()
			if ok != tc.ok || (ok && !got.Equal(tc.want)) {
				t.Errorf("take() = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
			if _, again := o.take(); again {
				t.Error("a second take() found a slot: take clears it")
			}
		})
	}
}

// TestFireWaitsBehindOwedSlots: while the owed slot is still held by
// another run, the task's next fires are not fired on their own (a lock
// skip each, or worse, run the moment the lock frees, before the owed
// slot: found by review); each leaves its slot behind the owed ones, and
// the first fire after the lock frees replays them all, in slot order.
func TestFireWaitsBehindOwedSlots(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 3, 30, 0, time.UTC)
	f := heldLockLoop(t, start)
	waitFor := f.waiter(t)
	for _, m := range []int{4, 5, 6} {
		slot := time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC)
		f.set(slot.Add(5 * time.Second))
		waitFor("the loop to come to "+slot.Format(time.Kitchen), func() bool { return !f.through.get().Before(slot) })
		f.d.fires.Wait() // no fire of the loop in flight: each finds the lock held
	}
	f.release(t)
	f.set(time.Date(2026, 3, 1, 10, 7, 5, 0, time.UTC))
	waitFor("10:07's fire", func() bool { return strings.Contains(f.fires(), "10:07:00Z schedule") })
	f.stop()
	want := "2026-03-01T10:04:00Z replay\n2026-03-01T10:05:00Z replay\n2026-03-01T10:06:00Z replay\n2026-03-01T10:07:00Z schedule\n"
	if got := f.fires(); got != want {
		t.Errorf("the job ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
	}
	// The lock held before 10:04's replay is said once, not at each of the
	// scans before the fires that found it still held (found by review).
	if n := strings.Count(f.logs.String(), "none runs before slot 2026-03-01T10:04:00Z"); n != 1 {
		t.Errorf("the lock held at 10:04 is said %d times, want once:\n%s", n, f.logs.String())
	}
}

// TestOwedFiresDuringAnOutageAreCounted: while the ledger cannot record
// fires, each fire of the loop still tries, is logged with its slot and
// counted (FiresUnrecorded): the owed slots' replay before it cannot read
// the ledger either, and does not take the fire's slot away silently
// (found by review: only the first fire of an outage was counted).
func TestOwedFiresDuringAnOutageAreCounted(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 3, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", start)
	f.task.Req.Shared = true // refuse a fire the ledger cannot claim, as on PostgreSQL
	set := f.movableClock(start)
	f.d.cfg.Rule = catchup.MissedRule{MaxAge: 24 * time.Hour, Tolerance: 5 * time.Minute, FiredAfter: start}
	f.d.cfg.Rescan = 0
	db, err := sql.Open("sqlite", "file:"+f.d.cfg.Machine.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`ALTER TABLE runs RENAME TO runs_away`); err != nil {
		t.Fatal(err)
	}
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	through := new(progress)
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, start, through) }()
	waitFor := f.waiter(t)
	for i, m := range []int{4, 5, 6} {
		set(time.Date(2026, 3, 1, 10, m, 5, 0, time.UTC))
		waitFor(fmt.Sprintf("fire %d to be counted", i+1), func() bool { return f.d.Lag().FiresUnrecorded == int64(i+1) })
	}
	cancel()
	<-done
	f.d.fires.Wait()
	logs := f.logs.String()
	for _, m := range []string{"04", "05", "06"} {
		if !regexp.MustCompile(`level=ERROR .*event=skip task=tick slot=2026-03-01T10:` + m + `:00Z`).MatchString(logs) {
			t.Errorf("no ERROR line for 10:%s's fire:\n%s", m, logs)
		}
	}
}

// TestLongJobRunsItsSlotsInOrder: a job longer than its period (the
// default --on-busy; the clock here runs ahead of it) meets its own lock; the slots it owes are replayed
// before the next fire, and that fire, held back, lets the one queued
// behind it go only once it has run: released at once, that later fire
// raced it for the lock, won, and ran its slot first (found by review of
// cf5eef7, 4 runs in 6 of a 3.5 s job on a 1 s test minute). This test
// pins the order of a long job's slots; it did not catch that race on the
// code before the fix in 6 runs (the race needs a fire queued behind the
// one that replays the owed slots at that moment): no deterministic test.
func TestLongJobRunsItsSlotsInOrder(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "long", "all", start)
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log; sleep 0.25`}
	set := f.movableClock(start)
	f.d.cfg.Rule = catchup.MissedRule{MaxAge: 24 * time.Hour, Tolerance: 5 * time.Minute, FiredAfter: start}
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	through := new(progress)
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, start, through) }()
	waitFor := f.waiter(t)
	last := start
	for m := 1; m <= 12; m++ { // the clock runs ahead of the jobs: each lasts 0.25 s
		last = start.Add(time.Duration(m)*time.Minute - 30*time.Second)
		set(last.Add(time.Second))
		waitFor("the loop to come to "+last.Format(time.Kitchen), func() bool { return !through.get().Before(last) })
	}
	waitFor("every slot to run", func() bool { return strings.Count(f.fires(), "\n") >= 12 })
	cancel()
	<-done
	f.d.fires.Wait()
	var prev string
	for _, line := range strings.Split(strings.TrimSpace(f.fires()), "\n") {
		slot := strings.Fields(line)[0]
		if slot <= prev {
			t.Errorf("slot %s ran after %s:\n%slog:\n%s", slot, prev, f.fires(), f.logs.String())
			break
		}
		prev = slot
	}
}

// heldLoop is task tick's loop (--rescan 0, its clock moved by set),
// started once a run by hand holds the task's lock.
type heldLoop struct {
	*fireFixture
	set     func(time.Time)
	through *progress
	held    chan error // the run by hand's error, once it ended
	cancel  func()
	done    chan struct{} // closed once the loop has returned
}

// heldLockLoop starts task tick's loop at start, once a run by hand holds
// the task's lock (until release). setup, if any, changes the fixture
// before the loop starts.
func heldLockLoop(t *testing.T, start time.Time, setup ...func(*fireFixture)) *heldLoop {
	t.Helper()
	f := newFireFixture(t, "tick", "all", start)
	h := &heldLoop{fireFixture: f, set: f.movableClock(start), through: new(progress), held: make(chan error, 1),
		done: make(chan struct{})}
	f.d.cfg.Rule = catchup.MissedRule{MaxAge: 24 * time.Hour, Tolerance: 5 * time.Minute, FiredAfter: start}
	f.d.cfg.Rescan = 0
	for _, s := range setup {
		s(f)
	}
	hold := catchup.RunRequest{Task: "tick", Manual: true, Dir: f.dir, Argv: []string{"/bin/sh", "-c",
		`touch holding; while [ ! -e release-hold ]; do sleep 0.02; done`}}
	go func() {
		_, err := catchup.Run(context.Background(), f.st, nil, f.d.cfg.Machine, hold)
		h.held <- err
	}()
	f.waiter(t)("the run by hand to hold the lock", func() bool { _, err := os.Stat(filepath.Join(f.dir, "holding")); return err == nil })
	lctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { defer close(h.done); f.d.loop(context.Background(), lctx, f.task, start, h.through) }()
	t.Cleanup(cancel)
	return h
}

// release ends the run by hand, and waits for it.
func (h *heldLoop) release(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(h.dir, "release-hold"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-h.held; err != nil {
		t.Fatal(err)
	}
}

// stop ends the loop and waits for it and its fires.
func (h *heldLoop) stop() {
	h.cancel()
	<-h.done
	h.d.fires.Wait()
}
