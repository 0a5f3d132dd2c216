package catchup

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/catchup/catchup/store"
)

// releaseOnLockSkip is a real ledger that calls release once a lock skip
// (skipped, exit 75) is recorded.
type releaseOnLockSkip struct {
	store.Store
	release func()
	once    sync.Once
}

func (r *releaseOnLockSkip) AddRun(ctx context.Context, run store.Run) (int64, error) {
	id, err := r.Store.AddRun(ctx, run)
	if run.Status == store.StatusSkipped && run.ExitCode != nil && *run.ExitCode == exitLocked {
		r.once.Do(r.release)
	}
	return id, err
}

// TestScanStopsATaskAtALockSkip: the task is running when scan replays its
// oldest missed slot (a cron fire; on a fleet, another host's scan), so
// that replay is a lock skip. Its later slots must wait for the next scan:
// tried now, one could run as soon as the task is free, before the older
// slot, breaking oldest first.
func TestScanStopsATaskAtALockSkip(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	other, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := other.tryLock(); err != nil || !ok {
		t.Fatalf("the other run's lock: %v, %v", ok, err)
	}
	f.now = mustTime(t, "2026-03-01T13:30:00Z") // 11:00, 12:00, 13:00 missed
	rep, err := Scan(context.Background(), &releaseOnLockSkip{Store: f.st, release: other.close}, f.m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	if ts := rep.Tasks[0]; ts.Replayed != 0 || ts.Skipped != 1 || ts.Left != 2 {
		t.Errorf("first scan: replayed %d, skipped %d, left %d; want 11:00 lock-skipped, 12:00 and 13:00 left for the next scan",
			ts.Replayed, ts.Skipped, ts.Left)
	}
	f.scan(t, scanRequest())
	want := strings.Join(append(hours("schedule", 10), hours("replay", 11, 12, 13)...), "|")
	if got := strings.Join(f.job.runs(t), "|"); got != want {
		t.Errorf("the job ran for %v, want %v: oldest first", got, want)
	}
}

// TestScanJobExit75IsAFailure: a job that exits 75 itself (EX_TEMPFAIL) ran
// and failed; it is not a lock skip, and the task's later slots are still
// replayed in this scan.
func TestScanJobExit75IsAFailure(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	for _, h := range []string{"11", "12", "13"} {
		f.job.exitAt(t, mustTime(t, "2026-03-01T"+h+":00:00Z"), exitLocked)
	}
	f.now = mustTime(t, "2026-03-01T13:30:00Z")
	ts := f.scan(t, scanRequest())
	if ts.Failed != 3 || ts.Skipped != 0 || len(ts.Warnings) != 0 {
		t.Errorf("scan: failed %d, skipped %d, warnings %q; want the three replays failed", ts.Failed, ts.Skipped, ts.Warnings)
	}
	want := strings.Join(append(hours("schedule", 10), hours("replay", 11, 12, 13)...), "|")
	if got := strings.Join(f.job.runs(t), "|"); got != want {
		t.Errorf("the job ran for %v, want %v", got, want)
	}
}
