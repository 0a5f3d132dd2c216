package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestFiresHeldForAPlaceRunInSlotOrder: the fires of a task that wait for a
// place under --concurrency (other tasks' jobs hold them all) run one after
// another, oldest first, once places come free. Released together (two
// places freed at once), the second met the first's lock: the daemon
// lock-skipped its own fire, and under --on-busy skip the slot was settled
// without ever running.
func TestFiresHeldForAPlaceRunInSlotOrder(t *testing.T) {
	t.Parallel()
	down := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", down)
	// A run outlasts the half second a fire waits out a lock probe.
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log; sleep 1`}
	f.task.Req.OnBusy = "skip"
	f.d.limiter = make(chan struct{}, 2) // --concurrency 2
	started := down.Add(time.Minute)     // 10:01:30: 10:01 is the start's replay
	set := f.movableClock(started)
	f.d.cfg.Rule.FiredAfter = started

	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	through := new(progress)
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, started, through) }()
	waitFor := f.waiter(t)
	waitFor("the start's replay to end", f.runsEnded(t, 1))
	f.d.limiter <- struct{}{} // other tasks' jobs take both places (once the scan gave its own back)
	f.d.limiter <- struct{}{}
	for _, slot := range []time.Time{started.Add(30 * time.Second), started.Add(90 * time.Second)} {
		// The clock at the slot itself, not past it: read by the loop just
		// after the fire before (this wait sees it before that read), a
		// clock past the next slot is a loop fallen behind, which leaves the
		// slot to a replay (a flaky CI run: 10:04 replayed, not fired).
		set(slot) // 10:02 and 10:03 come, and wait for a place
		waitFor("the loop to fire "+slot.Format(time.Kitchen), func() bool { return !through.get().Before(slot) })
	}
	<-f.d.limiter // the other jobs end at once: two places free
	<-f.d.limiter
	waitFor("the two fires to end", f.runsEnded(t, 3))
	cancel()
	<-done
	f.d.fires.Wait()
	runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	f.checkRanInOrder(t, "2026-03-01T10:01:00Z replay\n2026-03-01T10:02:00Z schedule\n2026-03-01T10:03:00Z schedule\n", runs)
	if logs := f.logs.String(); strings.Contains(logs, "event=skip") {
		t.Errorf("a fire was not run:\n%s", logs)
	}
}
