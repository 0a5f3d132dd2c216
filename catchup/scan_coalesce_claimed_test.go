package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// lateFire is a real ledger where a late cron fire (or a hand-run
// `catchup run`) claims one slot just before this scan's replay does, and
// runs it, succeeding, while the scan goes on.
type lateFire struct {
	store.Store
	slot time.Time
	id   int64
}

func (l *lateFire) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if l.id == 0 && req.Run.Slot.Equal(l.slot) {
		c, err := l.Store.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: req.Run.Task, Slot: l.slot,
			Trigger: store.TriggerSchedule, Status: store.StatusRunning, Attempt: 1, StartedAt: req.Run.StartedAt, Host: "b"}})
		if err != nil {
			return store.ClaimResult{}, err
		}
		l.id = c.Run.ID
	}
	return l.Store.Claim(ctx, req)
}

func (l *lateFire) Shared() bool { return true }

func (l *lateFire) SetSettledOf(ctx context.Context, task string, registered store.Of, through time.Time) error {
	if l.id != 0 {
		code := 0
		if err := l.Store.Finish(ctx, l.id, store.Outcome{Status: store.StatusSucceeded, EndedAt: through, ExitCode: &code}); err != nil {
			return err
		}
	}
	return l.Store.SetSettledOf(ctx, task, registered, through)
}

// TestCoalesceFoldsOnlyWhatItsReplayCovers: scan --replay coalesce folds a
// gap into one replay of its latest slot, whose job is told the whole gap
// (CATCHUP_PREV_SLOT). If another run takes that slot first, it is told
// only its own slot's predecessor: the gap before is not covered, so it must
// not be recorded folded (settled). The next scan coalesces it again.
func TestCoalesceFoldsOnlyWhatItsReplayCovers(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Replay = "coalesce"
	req.Argv = []string{"sh", "-c", `echo "$CATCHUP_SLOT after $CATCHUP_PREV_SLOT" >> gaps.log`}
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T15:30:00Z")
	ledger := &lateFire{Store: f.st, slot: mustTime(t, "2026-03-01T15:00:00Z")}
	rep, err := Scan(context.Background(), ledger, f.m, scanRequest())
	if err != nil {
		t.Fatalf("first scan: %v", err)
	}
	if ts := rep.Tasks[0]; ts.Replayed != 0 || len(ts.Missed) != 5 {
		t.Fatalf("first scan: missed %v, replayed %d; want 11:00-15:00 missed, nothing replayed (a late fire took 15:00)",
			ts.Missed, ts.Replayed)
	}
	// Every missed slot is counted once: 15:00 skipped (taken), the four
	// folds left missed for the next scan.
	if ts := rep.Tasks[0]; ts.Skipped != 1 || ts.Left != 4 || ts.Failed+ts.Interrupted+ts.Expired != 0 {
		t.Errorf("first scan: skipped %d, left %d, failed %d, interrupted %d, expired %d; want 1 skipped, 4 left",
			ts.Skipped, ts.Left, ts.Failed, ts.Interrupted, ts.Expired)
	}
	f.now = mustTime(t, "2026-03-01T15:40:00Z")
	ts := f.scan(t, scanRequest())
	if ts.Replayed != 1 || len(ts.Missed) != 4 {
		t.Errorf("second scan: missed %v, replayed %d; want 11:00-14:00 coalesced into one replay", ts.Missed, ts.Replayed)
	}
	b, err := os.ReadFile(filepath.Join(f.job.dir, "gaps.log"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	want := []string{"2026-03-01T10:00:00Z after 2026-03-01T09:00:00Z", "2026-03-01T14:00:00Z after 2026-03-01T10:00:00Z"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the job was told %q, want %q: the gap 10:00-14:00 covered once", got, want)
	}
}
