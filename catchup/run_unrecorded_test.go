package catchup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestStoppedUnrecordedRunIsReplayed: a fire that ran while the ledger
// could not be reached and was stopped (SIGTERM to catchup) mid-job is
// noted interrupted, as a recorded run is recorded: the next scan records
// it so and replays its slot once. Noted failed, the slot was settled and
// never ran to its end.
func TestStoppedUnrecordedRunIsReplayed(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	hold := filepath.Join(f.job.dir, "hold")
	started := filepath.Join(f.job.dir, "started")
	req := f.request(t)
	// The job holds (until stopped) while the hold file exists; else it
	// logs its slot.
	req.Argv = []string{"sh", "-c", `if [ -e hold ]; then : > started; exec sleep 60; fi; echo "$CATCHUP_SLOT" >> runs.log`}
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f.now = mustTime(t, "2026-03-01T10:00:30Z")
	// Stopped as the daemon stops a fire: ctx cancelled, the job's group
	// sent SIGTERM, once it has started.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	f.m.JobSignals = nil
	f.m.OnJobStart = func(pid int) {
		go func() {
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				if _, err := os.Stat(started); err == nil {
					stop()
					syscall.Kill(-pid, syscall.SIGTERM)
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	unreachable := errors.New("ledger unreachable")
	res, err := Run(ctx, nil, unreachable, f.m, req)
	if err != nil || !res.Ran {
		t.Fatalf("the unrecorded fire: %+v, %v; want it run", res, err)
	}
	if ctx.Err() == nil {
		t.Fatal("the job never started within 30s: it was not stopped")
	}
	f.m.OnJobStart = nil
	if err := os.Remove(hold); err != nil {
		t.Fatal(err)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	if ts := f.scan(t, scanRequest()); ts.Replayed != 1 {
		t.Errorf("scan replayed %d slots, want 1 (10:00, stopped before its end)", ts.Replayed)
	}
	if got, want := f.job.runs(t), []string{"2026-03-01T09:00:00Z", "2026-03-01T10:00:00Z"}; !slices.Equal(got, want) {
		t.Errorf("the job ran to its end for %v, want %v", got, want)
	}
	var stopped *store.Run
	for _, r := range f.history(t) {
		if r.Slot.Equal(mustTime(t, "2026-03-01T10:00:00Z")) && r.Trigger == store.TriggerSchedule {
			stopped = &r
		}
	}
	if stopped == nil || stopped.Status != store.StatusInterrupted {
		t.Errorf("the stopped fire's record = %+v, want it interrupted", stopped)
	}
}
