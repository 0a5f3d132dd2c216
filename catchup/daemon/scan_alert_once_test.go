package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRescanAlertsOnlyWhatIsNew: a --replay none line with --notify-cmd
// (its missed slots stay missed, by policy) is alerted once for a set of
// missed slots, not at every rescan while the set stays as it was (a
// daemon rescans every minute: one outage paged ~10,000 times in its
// 7-day window); a slot missed since is news, alerted again, and so is the
// set after the daemon's restart (a new daemon has said nothing yet).
func TestRescanAlertsOnlyWhatIsNew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "quiet", "none", start.Add(-time.Minute))
	alerts := filepath.Join(f.dir, "alerts")
	f.task.Req.NotifyCmd = `echo "$CATCHUP_MISSED $CATCHUP_MISSED_SLOTS" >> ` + alerts
	lines := func() []string {
		b, _ := os.ReadFile(alerts)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
	}
	*f.now = start.Add(2 * time.Minute) // 10:00 and 10:01 missed, never fired
	for range 3 {
		f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	}
	if got := lines(); len(got) != 1 {
		t.Fatalf("three rescans of the same 2 missed slots alerted %d times (%q), want once", len(got), got)
	}
	*f.now = start.Add(3 * time.Minute) // 10:02 missed too: news
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	if got := lines(); len(got) != 2 || got[1] == got[0] {
		t.Fatalf("alerts %q; want a second one, for the 3 slots missed now, and no more", got)
	}
	restarted := New(f.d.cfg)
	restarted.scan(ctx, f.task, time.Time{}, time.Time{})
	if got := lines(); len(got) != 3 {
		t.Fatalf("alerts %q; want a third one from the restarted daemon", got)
	}
}
