package catchup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCoalesceGapsApartBySuccess: missed slots with a succeeded slot among
// them are two gaps. Each is coalesced into one replay of its latest slot,
// told its own gap (CATCHUP_PREV_SLOT, the success just before it): one
// replay for all, told the gap from the first success, would settle the
// middle success's interval a second time.
func TestCoalesceGapsApartBySuccess(t *testing.T) {
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Replay = "coalesce"
	req.Argv = []string{"sh", "-c", `echo "$CATCHUP_SLOT after $CATCHUP_PREV_SLOT" >> gaps.log`}
	for _, at := range []string{"2026-03-01T10:00:30Z", "2026-03-01T12:00:30Z"} { // 11:00 missed between
		f.now = mustTime(t, at)
		if res := f.run(t, req); res.ExitCode != 0 {
			t.Fatalf("fire at %s: exit %d", at, res.ExitCode)
		}
	}
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
	if strings.Count(string(b), "\n") != 4 {
		t.Errorf("the job ran %d times, want 4", strings.Count(string(b), "\n"))
	}
}
