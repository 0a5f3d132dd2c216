package daemon

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLoopClockStepsFireEachSlotOnce: the clock of a running daemon is
// stepped back an hour (NTP), then forward past the slots the loop had
// not come to. No slot runs twice (the hour back brings back 09:02..10:02,
// which the loop fired already, and a rescan meanwhile finds the ledger
// ahead of the clock and replays nothing), and the slots the step forward
// passed run once each, oldest first.
func TestLoopClockStepsFireEachSlotOnce(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", start)
	set := f.movableClock(start)
	f.d.cfg.Rule.FiredAfter = start
	f.d.cfg.Rule.MaxAge = 24 * time.Hour
	f.d.cfg.Rescan = 50 * time.Millisecond

	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	through := new(progress)
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, start, through) }()
	waitFor := f.waiter(t)
	at := func(h, m, s int) time.Time { return time.Date(2026, 3, 1, h, m, s, 0, time.UTC) }
	for _, slot := range []time.Time{at(10, 1, 0), at(10, 2, 0)} {
		set(slot)
		waitFor("the loop to fire "+slot.Format(time.Kitchen), func() bool {
			return strings.Contains(f.fires(), slot.Format(time.RFC3339)+" schedule")
		})
	}
	// NTP steps the clock back an hour; it then runs on through the slots
	// of 09:01..10:02 a second time, with rescans on the way.
	for _, now := range []time.Time{at(9, 2, 10), at(9, 30, 0), at(10, 1, 0), at(10, 2, 0), at(10, 2, 30)} {
		set(now)
		time.Sleep(150 * time.Millisecond) // room for a few rescans at each step (none must run a slot): not a wait for anything
	}
	set(at(10, 3, 0))
	waitFor("the loop to fire 10:03", func() bool { return strings.Contains(f.fires(), "10:03:00Z") })
	// The clock then jumps four minutes ahead: 10:04..10:07 are each run once.
	set(at(10, 7, 20))
	waitFor("10:04 to 10:07 to run", func() bool {
		return strings.Count(f.fires(), "\n") >= 7 && f.runsEnded(t, 7)()
	})
	time.Sleep(300 * time.Millisecond) // room for rescans that would run a slot again: not a wait for anything
	cancel()
	<-done
	f.d.fires.Wait()
	lines := strings.Split(strings.TrimSpace(f.fires()), "\n")
	seen := map[string]bool{}
	var slots []string
	for _, l := range lines {
		slot := strings.Fields(l)[0]
		if seen[slot] {
			t.Errorf("slot %s ran twice; fires:\n%slog:\n%s", slot, f.fires(), f.logs.String())
		}
		seen[slot] = true
		slots = append(slots, slot)
	}
	want := []string{"10:01", "10:02", "10:03", "10:04", "10:05", "10:06", "10:07"}
	if len(slots) != len(want) {
		t.Fatalf("ran %d slots, want %d (%v); fires:\n%slog:\n%s", len(slots), len(want), want, f.fires(), f.logs.String())
	}
	for i, w := range want {
		if !strings.Contains(slots[i], "T"+w+":00Z") {
			t.Errorf("run %d is of %s, want %s (oldest first); fires:\n%s", i+1, slots[i], w, f.fires())
		}
	}
}
