package catchup

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlannedBeforeTheAlert: a scan tells its caller that a task's slots
// are planned before that task's replays and alert run: the daemon gives
// its place among the planning scans back then, so a slow --notify-cmd
// keeps no other task's scan (nor its fires) waiting.
func TestPlannedBeforeTheAlert(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	f.run(t, f.request(t)) // registers the hourly task
	dir := t.TempDir()
	mark, seen := filepath.Join(dir, "planned"), filepath.Join(dir, "seen")
	f.now = mustTime(t, "2026-03-01T12:30:00Z")
	req := scanRequest()
	req.Replay = "none" // no replay: the alert is the scan's last work
	req.NotifyCmd = "test -e " + mark + " && touch " + seen
	planned := 0
	req.Replays.Planned = func(task string) {
		planned++
		if err := os.WriteFile(mark, nil, 0o600); err != nil {
			t.Error(err)
		}
	}
	ts := f.scan(t, req)
	if len(ts.Missed) == 0 {
		t.Fatal("nothing missed: the alert has nothing to say")
	}
	if planned != 1 {
		t.Errorf("Planned called %d times, want once", planned)
	}
	if _, err := os.Stat(seen); err != nil {
		t.Errorf("the alert ran before the task was planned (or not at all): %v", err)
	}
}
