package runner

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestStopKillJudgesAJobEndingAsItComes stops a run as the daemon does,
// and the caller's kill (the daemon's grace) comes while the job's own
// process is still running its cleanup: nothing to judge yet, the group
// is all killed. But that process ends of itself (exit 143) in the instant
// between the kill's look at it and the SIGKILL: what of its group was
// still there, ignoring the stop, outlived the job and is counted, as it
// would be had the job ended an instant sooner (before, it was killed
// unjudged: the job ended 143, nothing said). A loaded machine, slow to
// let a job run its trap, met that instant at the daemon's --grace.
func TestStopKillJudgesAJobEndingAsItComes(t *testing.T) {
	defer func(d time.Duration) { stopJudge = d }(stopJudge)
	stopJudge = time.Minute
	dir := t.TempDir()
	up, ending := filepath.Join(dir, "up"), filepath.Join(dir, "ending")
	child := `trap '' TERM; touch "$1"; while :; do sleep 0.05; done`
	stop, cancel := context.WithCancel(context.Background())
	defer cancel()
	kill := make(chan struct{})
	pgid := make(chan int, 1)
	var main atomic.Int64
	defer func(f func()) { beforeCallerKill = f }(beforeCallerKill)
	beforeCallerKill = func() {
		// The job's own process ends of itself now, after the kill's look.
		if err := os.WriteFile(ending, nil, 0o600); err != nil {
			t.Error(err)
		}
		for deadline := time.Now().Add(hangGuard); !processExited(int(main.Load())) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	go func() {
		g := <-pgid
		for deadline := time.Now().Add(hangGuard); !fileExists(up) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		cancel() // the daemon's stop: it names no signal
		syscall.Kill(-g, syscall.SIGTERM)
		close(kill) // the daemon's grace is over: the job's trap still waits
	}()
	script := `trap 'while [ ! -e "$3" ]; do sleep 0.01; done; exit 143' TERM; sh -c "$1" sh "$2" & wait`
	cfg := Config{Argv: sh(script, child, up, ending), Stop: stop, KillAfter: time.Minute, Kill: kill,
		OnStart: func(pid int) { main.Store(int64(pid)); pgid <- pid }}
	res := run(t, cfg)
	if res.ExitCode != 143 {
		t.Fatalf("the job's own process did not end of itself before the SIGKILL: %+v", res)
	}
	if res.Leftover < 1 {
		t.Fatalf("Leftover = %d; want the child that ignored the stop counted: the job ended before the SIGKILL", res.Leftover)
	}
}
