package daemon

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestJobTrackedAfterTheStopGetsIt: a fire that began before the stop may
// start its job an instant after the stop signalled the running ones; the
// job gets the stop's signal when its start is tracked. Before, it got
// nothing until the grace's SIGKILL (and a job ignoring the stop that
// started after that, not even that).
func TestJobTrackedAfterTheStopGetsIt(t *testing.T) {
	t.Parallel()
	tests := map[string]syscall.Signal{"the stop's signal": syscall.SIGTERM, "the grace's kill": syscall.SIGKILL}
	for name, sig := range tests {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("sleep", "60")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			exited := make(chan *exec.ExitError, 1)
			go func() {
				err, _ := cmd.Wait().(*exec.ExitError)
				exited <- err
			}()
			d := &Daemon{groups: map[int]string{}}
			d.stopJobs(sig)
			d.track("t", cmd.Process.Pid, true)
			select {
			case ee := <-exited:
				ws, ok := ee.Sys().(syscall.WaitStatus)
				if ee == nil || !ok || !ws.Signaled() || ws.Signal() != sig {
					t.Fatalf("job ended with %v, want killed by %v", ee, sig)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("a job tracked after the stop did not get %v within 10 s", sig)
			}
		})
	}
}
