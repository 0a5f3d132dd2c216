package daemon

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// TestWaitingFireStoppedIsLockBusy: the fire of an --on-busy wait line
// that waits for its task's lock (the task's previous fire still runs)
// when the daemon stops runs nothing and records a lock skip (exit 75), as
// a `catchup run --wait` so stopped does: its fire came and found the task
// busy, so its slot is lock-busy for explain and ls --missed, and left to
// a replay (owed). It recorded nothing, and its slot read as if nothing
// had fired it.
func TestWaitingFireStoppedIsLockBusy(t *testing.T) {
	t.Parallel()
	first := time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC)
	second := first.Add(time.Minute)
	f := newFireFixture(t, "tick", "all", first.Add(-time.Minute))
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log
if [ "$CATCHUP_SLOT" = 2026-03-01T10:01:00Z ]; then while [ ! -e release ]; do sleep 0.02; done; fi`}
	f.task.Req.OnBusy = "wait"
	set := f.movableClock(first.Add(time.Second))
	waitFor := f.waiter(t)

	holder := make(chan struct{})
	go func() { defer close(holder); f.d.fire(context.Background(), f.task, first) }()
	defer func() { <-holder }()
	defer os.WriteFile(filepath.Join(f.dir, "release"), nil, 0o600)
	waitFor("the 10:01 job", func() bool { return strings.Contains(f.fires(), "10:01:00Z") })

	set(second.Add(time.Second))
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	owed := make(chan bool)
	go func() { owed <- f.d.fire(ctx, f.task, second) }()
	waitFor("the 10:02 fire to wait for the lock", func() bool { return waitingForLock("TestWaitingFireStoppedIsLockBusy") })
	stop() // the daemon stops while the fire waits
	if !<-owed {
		t.Errorf("the fire stopped while waiting is not owed a replay; log:\n%s", f.logs.String())
	}
	if strings.Contains(f.fires(), "10:02:00Z") {
		t.Fatalf("the fire stopped while waiting ran:\n%s", f.fires())
	}

	bg := context.Background()
	runs, err := f.st.SlotRuns(bg, "tick", second, second, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Status != store.StatusSkipped || runs[0].ExitCode == nil || *runs[0].ExitCode != 75 ||
		runs[0].Trigger != store.TriggerSchedule {
		t.Fatalf("10:02 recorded %+v; want one schedule fire skipped, exit 75; log:\n%s", runs, f.logs.String())
	}
	m := f.d.cfg.Machine
	m.Now = func() time.Time { return second.Add(10 * time.Minute) }
	ex, err := catchup.Explain(bg, f.st, m, catchup.ExplainRequest{Task: "tick", Slot: second})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Cause != catchup.CauseLockBusy {
		t.Errorf("explain 10:02: cause %q (%s), want %q", ex.Cause, ex.Summary, catchup.CauseLockBusy)
	}
	list, err := catchup.List(bg, f.st, m, catchup.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cause := "not listed"
	for _, ts := range list {
		for i, s := range ts.Missed {
			if s.Equal(second) {
				cause = ts.Causes[i]
			}
		}
	}
	if cause != catchup.CauseLockBusy {
		t.Errorf("ls --missed 10:02: cause %s, want %q", cause, catchup.CauseLockBusy)
	}
}

// waitingForLock reports whether a goroutine that test started waits for a
// task's lock. The package's tests run side by side: another test's fire
// waiting for its own lock is no sign (it let this one stop its fire before
// the fire waited, which then recorded nothing).
func waitingForLock(test string) bool {
	buf := make([]byte, 1<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "catchup.(*taskLock).wait(") && strings.Contains(g, "daemon."+test+".") {
			return true
		}
	}
	return false
}
