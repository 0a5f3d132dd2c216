package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCoalesceGapsApartBySuccess: missed slots with a succeeded slot among
// them are two gaps. Each is coalesced into one replay of its latest slot,
// told its own gap (CATCHUP_PREV_SLOT, the success just before it): one
// replay for all, told the gap from the first success, would settle the
// middle success's interval a second time.
func TestCoalesceGapsApartBySuccess(t *testing.T) {
	t.Parallel()
	f := coalesceFiredAt10And12(t)              // 11:00 missed between
	f.now = mustTime(t, "2026-03-01T15:30:00Z") // 13:00, 14:00, 15:00 missed
	ts := f.scan(t, scanRequest())
	b, err := os.ReadFile(filepath.Join(f.job.dir, "gaps.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := "2026-03-01T10:00:00Z after 2026-03-01T09:00:00Z\n" + // the fires
		"2026-03-01T12:00:00Z after 2026-03-01T11:00:00Z\n" +
		"2026-03-01T11:00:00Z after 2026-03-01T10:00:00Z\n" + // the first gap
		"2026-03-01T15:00:00Z after 2026-03-01T12:00:00Z\n" // the second, from the 12:00 success
	if string(b) != want {
		t.Errorf("the job was told:\n%s\nwant:\n%s", b, want)
	}
	if ts.Replayed != 2 || ts.Skipped != 2 {
		t.Errorf("scan: replayed %d, skipped %d; want 2 replays, 13:00 and 14:00 folded", ts.Replayed, ts.Skipped)
	}
	again := f.scan(t, scanRequest())
	if len(again.Missed) != 0 {
		t.Errorf("a second scan found %v missed", again.Missed)
	}
	if b, _ = os.ReadFile(filepath.Join(f.job.dir, "gaps.log")); strings.Count(string(b), "\n") != 4 {
		t.Errorf("the job ran %d times, want 4", strings.Count(string(b), "\n"))
	}
}

// TestCoalesceGapLeftByTheBudget: the --budget spent after the first gap's
// replay leaves the last gap, a single slot, missed for the next scan: it
// is neither replayed nor passed by the watermark.
func TestCoalesceGapLeftByTheBudget(t *testing.T) {
	t.Parallel()
	f := coalesceFiredAt10And12(t) // 11:00 and 13:00 missed
	first := scanWithSpentBudget(t, f, "2026-03-01T13:30:00Z")
	if want := "2026-03-01T11:00:00Z 2026-03-01T13:00:00Z"; fmt.Sprint(first.Missed) != fmt.Sprint([]time.Time{
		mustTime(t, "2026-03-01T11:00:00Z"), mustTime(t, "2026-03-01T13:00:00Z")}) {
		t.Errorf("first scan: missed %v, want %s", first.Missed, want)
	}
	if first.Replayed != 1 || first.Left != 1 {
		t.Errorf("first scan: replayed %d, left %d; want 1 and 1", first.Replayed, first.Left)
	}
	second := f.scan(t, scanRequest())
	if second.Replayed != 1 || len(second.Missed) != 1 || !second.Missed[0].Equal(mustTime(t, "2026-03-01T13:00:00Z")) {
		t.Errorf("second scan: missed %v, replayed %d; want 13:00, replayed", second.Missed, second.Replayed)
	}
}

// TestCoalesceFoldsLeftByTheBudgetAreLeft: a gap whose replay the --budget
// left counts all its slots as left for the next scan, not as skipped.
func TestCoalesceFoldsLeftByTheBudgetAreLeft(t *testing.T) {
	t.Parallel()
	f := coalesceFiredAt10And12(t) // 11:00, then 13:00 and 14:00 missed
	ts := scanWithSpentBudget(t, f, "2026-03-01T14:30:00Z")
	if ts.Replayed != 1 || ts.Skipped != 0 || ts.Left != 2 {
		t.Errorf("scan: replayed %d, skipped %d, left %d; want 11:00 replayed, 13:00 and 14:00 left", ts.Replayed, ts.Skipped, ts.Left)
	}
}

// coalesceFiredAt10And12 is a --replay coalesce task whose job logs the
// gap it is told ("SLOT after PREV_SLOT" in gaps.log), fired at 10:00 and
// 12:00 of 2026-03-01: 11:00 is missed between two successes.
func coalesceFiredAt10And12(t *testing.T) *runFixture {
	t.Helper()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Replay = "coalesce"
	req.Argv = []string{"sh", "-c", `echo "$CATCHUP_SLOT after $CATCHUP_PREV_SLOT" >> gaps.log`}
	for _, at := range []string{"2026-03-01T10:00:30Z", "2026-03-01T12:00:30Z"} {
		f.now = mustTime(t, at)
		if res := f.run(t, req); res.ExitCode != 0 {
			t.Fatalf("fire at %s: exit %d", at, res.ExitCode)
		}
	}
	return f
}

// scanWithSpentBudget scans at start with a --budget spent at once: the
// first replay starts, no other. The clock moves a millisecond at every
// reading, so that the budget runs out.
func scanWithSpentBudget(t *testing.T, f *runFixture, start string) TaskScan {
	t.Helper()
	at := mustTime(t, start)
	var ticks int
	f.m.Now = func() time.Time { ticks++; return at.Add(time.Duration(ticks) * time.Millisecond) }
	sr := scanRequest()
	sr.Budget = time.Nanosecond
	return f.scan(t, sr)
}
