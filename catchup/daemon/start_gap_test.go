package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// TestSlotWhileStartingIsFired: a slot that comes after the daemon started
// (its scans replay what came before) but before its task's loop began (the
// ledger was slow to take the registrations) is fired by the loop, late:
// neither fired nor replayed at once, it was lost under --replay none and
// replayed only after --tolerance otherwise.
func TestSlotWhileStartingIsFired(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "none", started)
	f.d.cfg.Rule.FiredAfter = started
	*f.now = started.Add(50 * time.Second) // the loop begins at 10:01:20, after 10:01

	lctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, started, new(progress)) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(f.fires(), "2026-03-01T10:01:00Z schedule") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	f.d.fires.Wait()
	if got, want := f.fires(), "2026-03-01T10:01:00Z schedule\n"; got != want {
		t.Errorf("the job ran for %q within 30s, want %q (the slot that came while the daemon started); log:\n%s", got, want, f.logs.String())
	}
}

// TestDaemonReplaysPastAHundred: the daemon's replays are bounded by its
// --max-replays (Config.MaxReplays), not by a hundred written in: 150
// minutes of downtime of an every-minute task under --max-replays 1000 are
// all replayed. (Beyond the bound, slots are recorded expired, as scan's.)
func TestDaemonReplaysPastAHundred(t *testing.T) {
	t.Parallel()
	down := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", down)
	*f.now = down.Add(150 * time.Minute)
	f.d.cfg.Rule.FiredAfter = *f.now
	f.d.cfg.Rule.MaxAge = 7 * 24 * time.Hour
	f.d.cfg.MaxReplays = 1000
	f.d.scan(context.Background(), f.task, time.Time{}, time.Time{})
	if got := strings.Count(f.fires(), " replay\n"); got != 150 {
		t.Errorf("replayed %d slots of 150 minutes of downtime, want 150; log:\n%s", got, f.logs.String())
	}
}

// TestSlotsWhileStartingRunOneAfterAnother: several slots that came while
// the daemon started are fired one after another, oldest first: fired at
// once, they met each other's lock, and all but one were lock skips (under
// --on-busy skip, settled without ever running).
func TestSlotsWhileStartingRunOneAfterAnother(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "none", started)
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log; sleep 0.3`}
	f.task.Req.OnBusy = "skip"
	f.d.cfg.Rule.FiredAfter = started
	*f.now = started.Add(3*time.Minute + 10*time.Second) // the loop begins at 10:03:40: 10:01, 10:02, 10:03 came

	f.loopUntilFired(t, started, "2026-03-01T10:01:00Z schedule\n2026-03-01T10:02:00Z schedule\n2026-03-01T10:03:00Z schedule\n")
}

// TestStartLongerThanTheTolerance: slots that came while the daemon started
// are fired by its loop, late, however long the start took: its first scan
// replays only the slots at or before its start. A start longer than
// --tolerance let that scan replay them too (they had grown older than
// the tolerance), and each fire then found its slot done: a spurious
// duplicate-fire record, or a fire and a replay of one slot racing.
func TestStartLongerThanTheTolerance(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", started)
	f.d.cfg.Rule.FiredAfter = started
	f.d.cfg.Rule.Tolerance = time.Minute
	*f.now = started.Add(3*time.Minute + 10*time.Second) // the loop begins at 10:03:40: 10:01, 10:02, 10:03 came

	f.loopUntilFired(t, started, "2026-03-01T10:01:00Z schedule\n2026-03-01T10:02:00Z schedule\n2026-03-01T10:03:00Z schedule\n")
	runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if strings.HasPrefix(r.Error, catchup.ReasonDuplicate) || r.Trigger != store.TriggerSchedule {
			t.Errorf("run %d of slot %s: %s %s %q; want only the loop's fires, no duplicate record", r.ID, r.Slot.Format(time.RFC3339), r.Trigger, r.Status, r.Error)
		}
	}
}

// loopUntilFired runs the task's loop, begun by a daemon started at
// started, until the job has logged want (or 30s passed), then stops it and
// waits for its fires.
func (f *fireFixture) loopUntilFired(t *testing.T, started time.Time, want string) {
	t.Helper()
	lctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, started, new(progress)) }()
	deadline := time.Now().Add(30 * time.Second)
	for f.fires() != want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	f.d.fires.Wait()
	if got := f.fires(); got != want {
		t.Errorf("the job ran for\n%swant, within 30s,\n%slog:\n%s", got, want, f.logs.String())
	}
}
