package catchup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// rivalGate orders two scans of one coalesce task: the winner's claim of
// the gap's slot waits (holding the task's lock) until the loser, which read
// the task meanwhile, records its lock skip; that record waits until the
// winner's job has started, its folds recorded.
type rivalGate struct {
	atClaim, skipped chan struct{}
	started          string // the file the winner's job creates
}

// winner's store: its claim of a replay waits for the loser's lock skip.
type winnerStore struct {
	store.Store
	g *rivalGate
}

func (w winnerStore) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if req.Run.Trigger == store.TriggerReplay {
		close(w.g.atClaim)
		select {
		case <-w.g.skipped:
		case <-time.After(30 * time.Second):
			return store.ClaimResult{}, errors.New("test: the other scan recorded no lock skip within 30s")
		}
	}
	return w.Store.Claim(ctx, req)
}

// loser's store: its lock skip is recorded once the winner's job runs.
type loserStore struct {
	store.Store
	g *rivalGate
}

func (l loserStore) AddRun(ctx context.Context, r store.Run) (int64, error) {
	if r.Status == store.StatusSkipped && r.ExitCode != nil && *r.ExitCode == exitLocked {
		close(l.g.skipped)
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(l.g.started); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return 0, errors.New("test: the winner's replay did not start within 30s")
			}
		}
	}
	return l.Store.AddRun(ctx, r)
}

// TestRivalCoalescingScanLeavesNothing: two scans --replay coalesce of one
// task at once, both having read its gap 11:00-15:00. The winner takes the
// task, folds 11:00-14:00 into its replay of 15:00 and runs it; the loser
// finds the task running (a lock skip of 15:00). The slots it folded are
// the winner's, recorded folded by the winner's replay: the loser reports
// them skipped (taken by another run), not left for the next scan, which
// has nothing of the gap to replay once that replay succeeds.
func TestRivalCoalescingScanLeavesNothing(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Replay = "coalesce"
	req.Argv = []string{"sh", "-c", `[ "$CATCHUP_TRIGGER" = replay ] || exit 0; ` +
		`echo "$CATCHUP_PREV_SLOT $CATCHUP_SLOT $CATCHUP_COALESCED" >> gaps.log; touch started; ` +
		`while [ ! -e release ]; do sleep 0.05; done`}
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T15:30:00Z")
	g := &rivalGate{atClaim: make(chan struct{}), skipped: make(chan struct{}), started: filepath.Join(f.job.dir, "started")}
	type result struct {
		rep ScanReport
		err error
	}
	won := make(chan result, 1)
	go func() {
		rep, err := Scan(context.Background(), winnerStore{f.st, g}, f.m, scanRequest())
		won <- result{rep, err}
	}()
	select {
	case <-g.atClaim:
	case <-time.After(30 * time.Second):
		t.Fatal("the first scan did not claim within 30s")
	}
	lost, err := Scan(context.Background(), loserStore{f.st, g}, f.m, scanRequest())
	if werr := os.WriteFile(filepath.Join(f.job.dir, "release"), nil, 0o600); werr != nil {
		t.Fatal(werr)
	}
	w := <-won
	if err != nil || w.err != nil {
		t.Fatalf("scans: %v, %v", w.err, err)
	}
	if ts := w.rep.Tasks[0]; ts.Replayed != 1 || ts.Skipped != 4 || ts.Left != 0 {
		t.Errorf("the winner: replayed %d, skipped %d, left %d; want 1 replayed, 4 folded", ts.Replayed, ts.Skipped, ts.Left)
	}
	ts := lost.Tasks[0]
	if len(ts.Missed) != 5 || ts.Replayed+ts.Failed+ts.Interrupted+ts.Expired != 0 || ts.Skipped != 5 || ts.Left != 0 {
		t.Errorf("the loser: missed %d, replayed %d, failed %d, skipped %d, left %d; want 5 missed, 5 skipped (the other scan's), none left",
			len(ts.Missed), ts.Replayed, ts.Failed, ts.Skipped, ts.Left)
	}
	for a := range ts.SlotActions() {
		if a.Slot.Before(mustTime(t, "2026-03-01T15:00:00Z")) && !strings.Contains(a.Reason, "another run") {
			t.Errorf("the loser's action for %s: %q; want it said to be another run's", a.Slot.Format(time.RFC3339), a.Reason)
		}
	}
	b, err := os.ReadFile(filepath.Join(f.job.dir, "gaps.log"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "2026-03-01T10:00:00Z 2026-03-01T15:00:00Z 5\n" {
		t.Errorf("the job ran %q; want the gap once, coalesced", got)
	}
	f.now = mustTime(t, "2026-03-01T15:40:00Z")
	if next := f.scan(t, scanRequest()); len(next.Missed) != 0 {
		t.Errorf("the next scan found %v missed; want none", next.Missed)
	}
}

// TestTakenSinceReadFollowsTheScansRule: a run of a folded slot recorded
// since the scan read the task takes the slot only if it settles it by the
// scan's rule: under --retry-failed a failed run settles nothing (the next
// such scan replays its slot), so the slot is not another run's.
func TestTakenSinceReadFollowsTheScansRule(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	read := f.history(t)[0].ID
	slot := mustTime(t, "2026-03-01T11:00:00Z")
	if _, err := f.st.AddRun(context.Background(), store.Run{Task: "job", Slot: slot, Trigger: store.TriggerReplay,
		Status: store.StatusFailed, ExitCode: exitCodePtr(1), StartedAt: slot.Add(time.Minute), EndedAt: slot.Add(2 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		rule  MissedRule
		taken bool
	}{
		"by default a failed run settles its slot": {MissedRule{}, true},
		"--retry-failed: it does not":              {MissedRule{RetryFailed: true}, false},
	} {
		t.Run(name, func(t *testing.T) {
			taken := takenSinceRead(context.Background(), f.st, "job", []time.Time{slot}, read, tc.rule)
			if _, ok := taken[slot.Unix()]; ok != tc.taken {
				t.Errorf("taken = %v, want %v", ok, tc.taken)
			}
		})
	}
}
