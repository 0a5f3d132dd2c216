package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunningJobsCountsOnlyRunningOnes: a scan's replays run one after
// another; once one has ended its job is no longer counted running
// (catchup_daemon_running_jobs) nor signalled at a stop. Each stayed
// tracked until the whole scan ended: a catch-up of N slots reported up to
// N jobs running, and a stop sent its signal to the process groups of jobs
// long gone (their ids free for the kernel to give to another process).
func TestRunningJobsCountsOnlyRunningOnes(t *testing.T) {
	t.Parallel()
	down := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", down)
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log
case "$CATCHUP_SLOT" in *10:03:00Z) while [ ! -e release ]; do sleep 0.02; done;; esac`}
	*f.now = down.Add(3 * time.Minute) // 10:03:30: 10:01, 10:02, 10:03 missed
	f.d.cfg.Rule.FiredAfter = *f.now
	done := make(chan struct{})
	go func() { defer close(done); f.d.scan(context.Background(), f.task, time.Time{}, time.Time{}) }()
	defer func() {
		os.WriteFile(filepath.Join(f.dir, "release"), nil, 0o600)
		<-done
	}()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(f.fires(), "10:03:00Z replay"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after 30s waiting for the third replay; fires:\n%s", f.fires())
		}
	}
	// The job may write its line before the runner has told the daemon of
	// its start (OnJobStart comes after the fork): wait for the count to
	// settle. With the ended replays still tracked it stays at 3.
	running := func() (jobs, groups int) {
		f.d.mu.Lock()
		groups = len(f.d.groups)
		f.d.mu.Unlock()
		return int(f.d.Lag().Running), groups
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		jobs, groups := running()
		if jobs == 1 && groups == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("during the third of three replays run one after another, %d jobs counted running and %d process groups "+
				"would get a stop signal after 30s, want 1 and 1 (the two ended replays' are gone)", jobs, groups)
		}
	}
}
