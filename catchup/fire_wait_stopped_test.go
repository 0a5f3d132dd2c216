package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestWaitStoppedRecordsALockSkip: a --wait fire told to stop while it
// waits for its task's lock runs nothing and records a lock skip (exit 75),
// although the stop cancelled its context: its fire came and found the
// task busy, so its slot is lock-busy, not not-fired (it recorded nothing).
// It registers its task, as every lock skip does: a first --cron fire so
// stopped leaves a slot that readers list. A replay so stopped records
// nothing: its slot keeps the cause it was
// missed for.
func TestWaitStoppedRecordsALockSkip(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	lock, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.close()
	if ok, err := lock.tryLock(); !ok || err != nil {
		t.Fatalf("tryLock = %v, %v", ok, err)
	}
	stopped := func(t *testing.T, req RunRequest) RunResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req.Wait = true
		res, err := Run(ctx, f.st, nil, f.m, req)
		if err != nil || res.ExitCode != exitLocked || res.Ran || !res.Skipped {
			t.Fatalf("Run = %+v, %v; want exit %d, skipped, not run", res, err, exitLocked)
		}
		return res
	}

	res := stopped(t, f.request(t))
	if !res.LeftMissed() {
		t.Errorf("the stopped fire does not leave its slot missed: %+v", res)
	}
	runs := f.history(t)
	if len(runs) != 1 {
		t.Fatalf("%d runs recorded, want the stopped fire's lock skip", len(runs))
	}
	rec := runs[0]
	if rec.ID != res.Run.ID || rec.Status != store.StatusSkipped || rec.Error != reasonStoppedWaiting ||
		exitText(rec.ExitCode) != "75" || !rec.Slot.Equal(mustTime(t, "2026-03-01T10:00:00Z")) {
		t.Errorf("recorded run %d: %s %q exit %s slot %v; want run %d, a lock skip of 10:00 with exit 75, %q",
			rec.ID, rec.Status, rec.Error, exitText(rec.ExitCode), rec.Slot, res.Run.ID, reasonStoppedWaiting)
	}
	if task, err := f.st.Task(context.Background(), "job"); err != nil || task.Schedule == "" {
		t.Errorf("the stopped fire did not register its task: %+v, %v", task, err)
	}

	req := f.request(t)
	req.ReplaySlot = mustTime(t, "2026-03-01T09:00:00Z")
	stopped(t, req)
	if n := len(f.history(t)); n != 1 {
		t.Errorf("%d runs recorded, want only the fire's skip: a stopped replay records nothing", n)
	}

	// A fire without --wait stopped in the moment every fire gives a held
	// lock (lockGrace) never asked to wait: it is the plain lock skip it
	// was about to be.
	f.now = mustTime(t, "2026-03-01T11:00:30Z")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err = Run(ctx, f.st, nil, f.m, f.request(t))
	if err != nil || res.ExitCode != exitLocked || res.Ran {
		t.Fatalf("Run = %+v, %v; want exit %d, not run", res, err, exitLocked)
	}
	if runs := f.history(t); len(runs) != 2 || runs[1].Error != reasonLocked || exitText(runs[1].ExitCode) != "75" {
		t.Errorf("recorded %+v; want a second record, a lock skip with exit 75, %q", runs, reasonLocked)
	}
}
