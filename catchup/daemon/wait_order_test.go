package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestWaitingFiresRunInSlotOrder: the fires of a --wait line that come
// while its job runs on wait for it, and run one after another, oldest
// first. Each polled the lock on its own, and whichever caught it first
// ran: 10:05 before 10:02, for a job that settles [PREV_SLOT, SLOT).
func TestWaitingFiresRunInSlotOrder(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", started.Add(-time.Minute)) // 10:00 is the start's replay
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log
if [ "$CATCHUP_SLOT" = 2026-03-01T10:01:00Z ]; then while [ ! -e release ]; do sleep 0.02; done; fi`}
	f.task.Req.Wait = true // --wait: no limit
	set := f.movableClock(started)
	f.d.cfg.Rule.FiredAfter = started

	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	through := new(progress)
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, started, through) }()
	waitFor := f.waiter(t)
	// Once the start's scan is over, the fires come on time (not held
	// behind it, which would chain them).
	waitFor("the start's replay", func() bool { return strings.Contains(f.fires(), "10:00:00Z replay") })
	waitFor("the replay's record", func() bool {
		runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 1})
		return err == nil && len(runs) == 1 && runs[0].Status == store.StatusSucceeded
	})
	want := strings.Builder{}
	want.WriteString("2026-03-01T10:00:00Z replay\n")
	for i := range 7 { // 10:01 runs; 10:02 to 10:07 come while it runs, and wait
		slot := started.Add(time.Duration(i)*time.Minute + 30*time.Second)
		// The clock at the slot itself, not past it: read by the loop just
		// after the fire before (this wait sees it before that read), a
		// clock past the next slot is a loop fallen behind, which leaves the
		// slot to a replay (a flaky CI run: 10:04 replayed, not fired).
		set(slot)
		waitFor("the loop to fire "+slot.Format(time.Kitchen), func() bool { return !through.get().Before(slot) })
		if i == 0 {
			waitFor("the 10:01 job", func() bool { return strings.Contains(f.fires(), "10:01:00Z") })
		}
		want.WriteString(slot.Format(time.RFC3339) + " schedule\n")
	}
	if err := os.WriteFile(filepath.Join(f.dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("the seven fires to run", func() bool { return strings.Count(f.fires(), "\n") >= 8 })
	cancel()
	<-done
	f.d.fires.Wait()
	if got := f.fires(); got != want.String() {
		t.Errorf("the job ran for\n%swant\n%slog:\n%s", got, want.String(), f.logs.String())
	}
}
