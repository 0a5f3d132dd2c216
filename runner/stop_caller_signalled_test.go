package runner

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStopSignalledByTheCallerBlamesNoCleanup stops a run as the daemon
// does: its Stop ends with no signal and the caller sends SIGTERM to the
// job's group itself. The job's own process dies of it at once; a child of
// its group handles it (a trap that cleans up for 0.3 s, then exits). That
// child neither ignored the stop nor was left behind: it is not a leftover
// (the daemon logged "1 process of its group outlived the job, ignoring the
// stop signal: killed" for it, as it exited by itself). A child that does
// ignore the stop still counts.
func TestStopSignalledByTheCallerBlamesNoCleanup(t *testing.T) {
	// The child's cleanup takes 0.3 s: judged after 0.5 s, a busy machine
	// could make it late. The rule is the same with a longer judge (before
	// KillAfter, which ends what is left).
	defer func(d time.Duration) { stopJudge = d }(stopJudge)
	stopJudge = 2 * time.Second
	tests := map[string]struct {
		trap     string
		leftover bool
	}{
		"a child cleaning up": {trap: `sleep 0.3; echo cleaned > "$1"; exit 0`},
		"a child ignoring it": {trap: ``, leftover: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			up, cleaned := filepath.Join(dir, "up"), filepath.Join(dir, "cleaned")
			child := `trap '` + tc.trap + `' TERM; touch "$2"; while :; do sleep 0.05; done`
			stop, cancel := context.WithCancel(context.Background())
			defer cancel()
			pgid := make(chan int, 1)
			go func() {
				g := <-pgid
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
					if _, err := os.Stat(up); err == nil {
						break
					}
				}
				cancel() // the daemon's stop: it names no signal
				syscall.Kill(-g, syscall.SIGTERM)
			}()
			res := run(t, Config{Argv: sh(`sh -c "$1" sh "$2" "$3" & wait`, child, cleaned, up), Stop: stop,
				KillAfter: 3 * time.Second, OnStart: func(pid int) { pgid <- pid }})
			if res.Signal != int(syscall.SIGTERM) {
				t.Fatalf("the job's own process did not die of the stop: %+v", res)
			}
			if got := res.Leftover > 0; got != tc.leftover {
				t.Fatalf("Leftover = %d; want a leftover: %v", res.Leftover, tc.leftover)
			}
			if _, err := os.Stat(cleaned); (err == nil) == tc.leftover {
				t.Fatalf("the child cleaned up: %v; want %v", err == nil, !tc.leftover)
			}
		})
	}
}
