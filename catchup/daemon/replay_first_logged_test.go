package daemon

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReplayFirstJobLoggedAsAReplay: a fire that replays a dead run's
// older slot before its own logs that job's start as a replay of that
// slot, its end too, and its own job's start as its own. Before, the
// replay's start was logged as the fire's (its slot, trigger schedule),
// and the fire's own job's start was not logged at all.
func TestReplayFirstJobLoggedAsAReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slot := time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC)
	dead := slot.Add(-time.Minute)
	f := newFireFixture(t, "tick", "all", dead.Add(-time.Minute))
	// The run of 10:00, left running: its catchup died (no process of
	// this host holds the task's lock).
	c, err := f.st.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "tick", Slot: dead, Trigger: store.TriggerSchedule,
		StartedAt: dead, Host: "h", PID: 1 << 22}})
	if err != nil || !c.Claimed {
		t.Fatalf("claim of the dead run: %+v, %v", c, err)
	}
	*f.now = slot.Add(time.Second)
	f.d.fire(ctx, f.task, slot)
	if got, want := f.fires(), "2026-03-01T10:00:00Z replay\n2026-03-01T10:01:00Z schedule\n"; got != want {
		t.Fatalf("the job ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
	}
	logs := f.logs.String()
	for _, want := range []string{
		`msg="job started" event=fire task=tick slot=2026-03-01T10:00:00Z pid=\d+ trigger=replay\n`,
		`msg="job ended" event=done task=tick slot=2026-03-01T10:00:00Z run=\d+ status=succeeded exit=0 seconds=\S+ trigger=replay\n`,
		`msg="job started" event=fire task=tick slot=2026-03-01T10:01:00Z pid=\d+ late_ms=\S+ trigger=schedule\n`,
		`msg="job ended" event=done task=tick slot=2026-03-01T10:01:00Z run=\d+ status=succeeded exit=0 seconds=\S+ trigger=schedule\n`,
	} {
		if n := len(regexp.MustCompile(want).FindAllString(logs, -1)); n != 1 {
			t.Errorf("%d lines match %s, want 1; log:\n%s", n, want, logs)
		}
	}
	if n := len(regexp.MustCompile(`msg="job started"`).FindAllString(logs, -1)); n != 2 {
		t.Errorf("%d job starts logged, want 2; log:\n%s", n, logs)
	}
}
