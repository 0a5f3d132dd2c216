package catchup

import (
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
)

// TestLockFreeOnceClosedWhileThisProcessForks: a task's lock is free the
// moment the run holding it closes it, even while another goroutine of
// this process starts commands (a daemon's other fires; tests beside each
// other). A process forked just then held a copy of the lock's descriptor
// until it ran its command: the task's next replay, at once, found the
// lock held and was skipped as busy (exit 75).
func TestLockFreeOnceClosedWhileThisProcessForks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/locks"
	var stop atomic.Bool
	done := make(chan struct{})
	for range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			for !stop.Load() {
				exec.Command("true").Run()
			}
		}()
	}
	defer func() { stop.Store(true); <-done; <-done }()
	for i := range 500 {
		for _, want := range []string{"taken", "taken again once closed"} {
			l, err := openTaskLock(dir, "job", os.Geteuid())
			if err != nil {
				t.Fatal(err)
			}
			ok, err := l.tryLock()
			l.close()
			if err != nil || !ok {
				t.Fatalf("try %d: lock %s: %v, %v; want it free", i, want, ok, err)
			}
		}
	}
}
