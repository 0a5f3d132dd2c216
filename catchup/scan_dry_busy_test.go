package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScanDryRunSaysALiveRunHoldsTheLock: a run of the task is running (a
// long cron fire of 13:00, after the missed 11:00 and 12:00; on a fleet,
// another host's), holding the task's lock. The real scan's first replay
// finds the lock held (skipped, exit 75) and leaves the task's other missed
// slots for the next scan: a dry run must say so too, not that it would
// replay them (before, it said "would replay 2" where the scan replayed
// none). Under coalesce, the slot folded into that replay is left with it.
func TestScanDryRunSaysALiveRunHoldsTheLock(t *testing.T) {
	t.Parallel()
	for backend, open := range sharedLedgers {
		for _, policy := range []string{"all", "coalesce"} {
			t.Run(backend+"/"+policy, func(t *testing.T) {
				st, db := open(t)
				dir := t.TempDir()
				now := mustTime(t, "2026-03-01T10:00:30Z")
				m := testMachine(db, now)
				m.LockDir = filepath.Join(t.TempDir(), "locks")
				m.Now = func() time.Time { return now }
				req := RunRequest{Task: "job", Schedule: mustSchedule(t, "0 * * * *", "UTC"), TZ: "UTC", Replay: "all",
					Tolerance: 5 * time.Minute, KillAfter: time.Second, Dir: dir, Argv: []string{"sh", "-c",
						`echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> runs.log; if [ -f "block-$CATCHUP_SLOT_UNIX" ]; then ` +
							`touch started; while [ ! -e release ]; do sleep 0.05; done; fi`}}
				if res, err := Run(context.Background(), st, nil, m, req); err != nil || res.ExitCode != 0 {
					t.Fatalf("registering fire: exit %d, %v", res.ExitCode, err)
				}
				holder := m // the 13:00 fire, still running; on a fleet, another host's
				at := mustTime(t, "2026-03-01T13:00:05Z")
				holder.Now = func() time.Time { return at }
				if st.Shared() {
					holder.Host = "b"
				}
				writeFile(t, filepath.Join(dir, "block-"+strconv.FormatInt(at.Truncate(time.Hour).Unix(), 10)), "")
				done := make(chan error, 1)
				go func() {
					_, err := Run(context.Background(), st, nil, holder, req)
					done <- err
				}()
				t.Cleanup(func() { writeFile(t, filepath.Join(dir, "release"), ""); <-done })
				waitStarted(t, filepath.Join(dir, "started"), done)

				now = mustTime(t, "2026-03-01T13:30:00Z")
				sreq := scanRequest()
				sreq.Replay, sreq.DryRun = policy, true
				dry, err := Scan(context.Background(), st, m, sreq)
				if err != nil {
					t.Fatalf("dry run: %v", err)
				}
				sreq.DryRun = false
				actual, err := Scan(context.Background(), st, m, sreq)
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				d, r := dry.Tasks[0], actual.Tasks[0]
				if r.Replayed != 0 || r.Skipped != 1 || r.Left != 1 {
					t.Fatalf("the real scan replayed %d, skipped %d, left %d; want 0, 1 (busy), 1", r.Replayed, r.Skipped, r.Left)
				}
				dryAgrees(t, d, r)
				if dw, rw := strings.Join(d.Warnings, "\n"), strings.Join(r.Warnings, "\n"); dw != rw {
					t.Errorf("dry run warned %q; the real scan %q", dw, rw)
				}
				if got := strings.Join(slotLog{dir: dir}.runs(t), "|"); strings.Contains(got, "replay") {
					t.Errorf("the job ran %s; want no replay while the task runs", got)
				}
			})
		}
	}
}

// waitStarted waits for a job to touch path, failing if its run ended
// first or 10 s pass.
func waitStarted(t *testing.T, path string, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("the holding run ended before its job started: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the holding run's job did not start within 10 s (no %s)", path)
		}
	}
}
