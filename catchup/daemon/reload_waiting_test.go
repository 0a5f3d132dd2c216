package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReloadsWhileTheOldLoopWaits: a second reload comes while the loop
// the first one started still waits for the old loop's fire to end (a
// long job). The loop it replaces never began: the new one goes on from
// where that one would have, not from the second reload's read. Started
// from there, no loop fired the slots between the two reloads (found by
// review: rapid reloads left a slot to a later rescan, after later slots,
// in 3 runs of 3).
func TestReloadsWhileTheOldLoopWaits(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", start)
	job := `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER %s" >> fires.log
if [ "$CATCHUP_SLOT" = 2026-03-01T10:01:00Z ]; then while [ ! -e release ]; do sleep 0.02; done; fi`
	version := func(v string) Task {
		t := f.task
		t.Req.Argv = []string{"/bin/sh", "-c", strings.ReplaceAll(job, "%s", v)}
		t.Def.Argv = t.Req.Argv
		return t
	}
	set := f.movableClock(start)
	f.d.cfg.Rule.FiredAfter = start
	f.d.cfg.Rule.MaxAge = 24 * time.Hour
	f.d.cfg.Rescan = 0

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &tasks{d: f.d, ctx: ctx, running: map[string]*scheduled{}}
	waitFor := f.waiter(t)
	s.set([]Task{version("v1")}, start)
	set(time.Date(2026, 3, 1, 10, 1, 5, 0, time.UTC))
	waitFor("10:01's job to start", func() bool { return strings.Contains(f.fires(), "10:01:00Z schedule v1") })
	s.set([]Task{version("v2")}, f.d.cfg.Machine.Now()) // its loop waits for 10:01's job
	set(time.Date(2026, 3, 1, 10, 2, 5, 0, time.UTC))
	s.set([]Task{version("v3")}, f.d.cfg.Machine.Now()) // v2's loop never began
	set(time.Date(2026, 3, 1, 10, 3, 5, 0, time.UTC))
	if err := os.WriteFile(filepath.Join(f.dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	slot3 := time.Date(2026, 3, 1, 10, 3, 0, 0, time.UTC)
	var runs []store.Run
	waitFor("10:03 to end", func() bool {
		var err error
		if runs, err = f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100}); err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Slot.Equal(slot3) && r.Status != store.StatusRunning {
				return true
			}
		}
		return false
	})
	cancel()
	s.loops.Wait()
	f.d.fires.Wait()
	f.checkRanInOrder(t, "2026-03-01T10:01:00Z schedule v1\n2026-03-01T10:02:00Z schedule v3\n2026-03-01T10:03:00Z schedule v3\n", runs)
}
