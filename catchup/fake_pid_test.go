package catchup

import (
	"errors"
	"syscall"
	"testing"
	"time"
)

// Pids no process has, for the tests' records and machines: Linux's pids
// stay below pid_max, which is at most 1<<22 (PID_MAX_LIMIT). A fixed pid
// below it (4242) is a live process's now and then on a busy machine
// (pids wrap at pid_max, 32768 here), and a liveness check of it
// (processAlive, takerGone) then says the run or taker lives.
const (
	deadPID  = 1<<22 + 1 // a run's or a taker's process, gone
	testPID  = 1<<22 + 2 // testMachine's: this process as the code under test sees it
	otherPID = 1<<22 + 3 // another process's (a twin fire, another host)
)

// TestFakePIDsAreNoProcesses: every pid the tests make up for a process that
// is not alive is over the largest pid_max, so no process can have it.
func TestFakePIDsAreNoProcesses(t *testing.T) {
	t.Parallel()
	pids := map[string]int{"deadPID": deadPID, "testPID": testPID, "otherPID": otherPID,
		"testMachine's": testMachine(t.TempDir(), time.Now()).PID}
	for name, pid := range pids {
		if pid <= 1<<22 {
			t.Errorf("%s pid %d is at or below 1<<22, the largest pid_max: a live process may have it", name, pid)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s pid %d: signal 0 gave %v, want no such process", name, pid, err)
		}
	}
}
