package daemon

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestOwedSlotsOfARefusedHomeRunOnceFixed: a line whose home is refused
// (writable by others) while the task's lock is held by a run by hand,
// its fire's slot owed, runs nothing while it is: the owed slot and
// the later fires' slots stay missed, none recorded failed, and the
// refusal is said once, not again at each fire nor at each rescan. Once
// the home is fixed, every slot it owes runs once, oldest first, before
// the next fire.
func TestOwedSlotsOfARefusedHomeRunOnceFixed(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 3, 30, 0, time.UTC)
	var home string
	h := heldLockLoop(t, start, func(f *fireFixture) {
		home = homeLine(t, f)
		f.d.cfg.Rescan = 20 * time.Millisecond
	})
	waitFor := h.waiter(t)
	slot := func(m int) time.Time { return time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC) }
	runs := func() []store.Run {
		r, err := h.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The home made writable by others, with another user's job.sh, while
	// the task's lock is held; 10:04's fire is refused, its slot owed.
	// (Made so only after a check of the home passed, a replay would meet
	// it as its job starts, and be recorded failed, exit 126: X12. The
	// loop rescans every 20 ms: the test does not race it.)
	h.writeJob(t, home, true)
	if err := os.Chmod(home, 0o777); err != nil {
		t.Fatal(err)
	}
	h.set(slot(4).Add(5 * time.Second))
	waitFor("10:04's fire to be refused", func() bool { return strings.Contains(h.logs.String(), "working directory") })
	// Then the lock comes free.
	h.release(t)
	scans := func() int { return strings.Count(h.logs.String(), "replayed missed slots") }
	rescans := func(what string) {
		t.Helper()
		n := scans()
		waitFor("3 rescans "+what, func() bool { return scans() >= n+3 })
	}
	rescans("after the home was refused")
	for _, m := range []int{5, 6} {
		h.set(slot(m).Add(5 * time.Second))
		waitFor("the loop to come to "+slot(m).Format(time.Kitchen), func() bool { return !h.through.get().Before(slot(m)) })
		rescans("after " + slot(m).Format(time.Kitchen))
	}
	if h.plantedRan() {
		t.Fatalf("another user's job.sh ran; log:\n%s", h.logs.String())
	}
	if failed := h.failedRuns(t); len(failed) > 0 {
		t.Errorf("slots of the refused home recorded failed: %+v; want them left missed", failed)
	}
	if n := strings.Count(h.logs.String(), "working directory"); n != 1 {
		t.Errorf("the refusal is said %d times, want once while it stays:\n%s", n, h.logs.String())
	}

	// Fixed: its own job first (refused still), then the mode.
	h.writeJob(t, home, false)
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	h.set(slot(7).Add(5 * time.Second))
	waitFor("10:07's fire", func() bool { return strings.Contains(h.fires(), "10:07:00Z schedule") })
	h.stop()
	want := "2026-03-01T10:04:00Z replay\n2026-03-01T10:05:00Z replay\n2026-03-01T10:06:00Z replay\n2026-03-01T10:07:00Z schedule\n"
	if got := h.fires(); got != want {
		t.Errorf("once fixed, the job ran for\n%swant\n%slog:\n%s", got, want, h.logs.String())
	}
	succeeded := map[int64]int{}
	for _, r := range runs() {
		if r.Status == store.StatusSucceeded {
			succeeded[r.Slot.Unix()]++
		}
	}
	for m := 4; m <= 7; m++ {
		if n := succeeded[slot(m).Unix()]; n != 1 {
			t.Errorf("slot %s succeeded %d times, want once", slot(m).Format(time.Kitchen), n)
		}
	}
	if h.plantedRan() || len(h.failedRuns(t)) > 0 {
		t.Errorf("once fixed: planted job ran %v, failed runs %+v", h.plantedRan(), h.failedRuns(t))
	}
}
