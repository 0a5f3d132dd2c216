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

// TestRestartedTaskWaitsForItsOldLoopsFires: a reload that changes a task
// restarts its loop while the old loop's fire is still held behind the
// task's replays. The new loop's fires and scans wait for the old loop's
// to end: started at once, the new loop's fire of the next slot met the
// old replays' lock (a lock skip of the daemon's own fire) or ran before
// the older held slot, out of slot order.
func TestRestartedTaskWaitsForItsOldLoopsFires(t *testing.T) {
	t.Parallel()
	down := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", down)
	job := `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER %s" >> fires.log
if [ "$CATCHUP_TRIGGER" = replay ]; then while [ ! -e release ]; do sleep 0.02; done; fi
sleep 0.2`
	f.task.Req.Argv = []string{"/bin/sh", "-c", strings.ReplaceAll(job, "%s", "old")}
	started := down.Add(3 * time.Minute) // 10:03:30: 10:01, 10:02, 10:03 are the start's replays
	set := f.movableClock(started)
	f.d.cfg.Rule.FiredAfter = started
	f.d.cfg.Rule.MaxAge = 24 * time.Hour

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &tasks{d: f.d, ctx: ctx, running: map[string]*scheduled{}}
	waitFor := f.waiter(t)
	s.set([]Task{f.task}, started)
	waitFor("the first replay", func() bool { return strings.Contains(f.fires(), "10:01:00Z replay") })
	// 10:04 comes while the replays run: the old loop holds its fire back.
	slot := started.Add(30 * time.Second)
	set(slot.Add(10 * time.Second))
	old := s.running["tick"]
	waitFor("the old loop to fire 10:04", func() bool { return !old.through.get().Before(slot) })

	// The crontab line changes: the task's loop restarts.
	changed := f.task
	changed.Req.Argv = []string{"/bin/sh", "-c", strings.ReplaceAll(job, "%s", "new")}
	changed.Def.Argv = changed.Req.Argv
	s.set([]Task{changed}, f.d.cfg.Machine.Now())
	// 10:05 comes while the old loop's replays and held fire are still there.
	set(started.Add(90 * time.Second).Add(10 * time.Second))
	time.Sleep(time.Second) // the time a loop not waiting takes to fire 10:05 (it reads the clock every 50 ms)
	if err := os.WriteFile(filepath.Join(f.dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	want := "2026-03-01T10:01:00Z replay old\n2026-03-01T10:02:00Z replay old\n2026-03-01T10:03:00Z replay old\n" +
		"2026-03-01T10:04:00Z schedule old\n2026-03-01T10:05:00Z schedule new\n"
	var runs []store.Run
	waitFor("the five slots to end", func() bool {
		var err error
		if runs, err = f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100}); err != nil {
			t.Fatal(err)
		}
		ended := map[time.Time]bool{}
		for _, r := range runs {
			if r.Status == store.StatusRunning {
				return false
			}
			ended[r.Slot] = true
		}
		return len(ended) >= 5
	})
	cancel()
	s.loops.Wait()
	f.d.fires.Wait()
	f.checkRanInOrder(t, want, runs)
}
