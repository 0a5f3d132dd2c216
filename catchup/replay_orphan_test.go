package catchup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestOrphanOfReplayBlocksNextReplay: a replay whose command leaves a
// background child holding fd 3 (the task's lock) outside its process
// group (setsid: one left in the group is stopped with the run) is still
// running (R2):
// scan's next replay of the task must not start beside it. (Keeping the
// lock's descriptor from one replay to the next, to cover the moment
// between them, broke this: the next replay went on with the descriptor
// the orphan holds.)
func TestOrphanOfReplayBlocksNextReplay(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Argv = []string{"sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> runs.log; ` +
		`if [ "$CATCHUP_TRIGGER" = replay ]; then setsid sh -c 'echo $$ > orphan.pid; exec sleep 30' </dev/null >/dev/null 2>&1 & ` +
		`while [ ! -s orphan.pid ]; do sleep 0.01; done; fi`}
	t.Cleanup(func() { // the orphan outlives the scan: end it
		if b, err := os.ReadFile(filepath.Join(req.Dir, "orphan.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T12:30:00Z")
	ts := f.scan(t, scanRequest())
	runs := f.job.runs(t)
	if n := strings.Count(strings.Join(runs, "\n"), "replay"); n != 1 || ts.Replayed != 1 {
		t.Errorf("replayed %d, skipped %d, the job ran for %v; want 11:00 replayed and 12:00 lock-skipped while "+
			"11:00's orphan holds the task's lock", ts.Replayed, ts.Skipped, runs)
	}
}
