package runner

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStopKillJudgesFirst stops a run as the daemon does (its Stop ends
// with no signal, the caller signals the group itself): the job's own
// process dies of it, a child of its group ignores it. The kill comes
// before the judge of what is left (stopJudge after the job's exit): its
// KillAfter is shorter, or the caller's own kill (Config.Kill: the
// daemon's grace) comes first. The child still counts as a leftover that
// ignored the stop: it is judged before the kill, not found gone after
// it. stopJudge is long here, so the kill always comes first.
func TestStopKillJudgesFirst(t *testing.T) {
	defer func(d time.Duration) { stopJudge = d }(stopJudge)
	stopJudge = time.Minute
	tests := map[string]struct {
		killAfter  time.Duration
		callerKill bool
	}{
		"its kill-after before the judge":    {killAfter: 100 * time.Millisecond},
		"the caller's kill before the judge": {killAfter: time.Minute, callerKill: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			up := filepath.Join(dir, "up")
			child := `trap '' TERM; touch "$1"; while :; do sleep 0.05; done`
			stop, cancel := context.WithCancel(context.Background())
			defer cancel()
			kill := make(chan struct{})
			pgid := make(chan int, 1)
			go func() {
				g := <-pgid
				for deadline := time.Now().Add(hangGuard); !fileExists(up) && time.Now().Before(deadline); {
					time.Sleep(10 * time.Millisecond)
				}
				cancel() // the daemon's stop: it names no signal
				syscall.Kill(-g, syscall.SIGTERM)
				if !tc.callerKill {
					return
				}
				for deadline := time.Now().Add(hangGuard); !processGone(g) && time.Now().Before(deadline); {
					time.Sleep(10 * time.Millisecond)
				}
				close(kill) // the daemon's grace is over
			}()
			cfg := Config{Argv: sh(`sh -c "$1" sh "$2" & wait`, child, up), Stop: stop,
				KillAfter: tc.killAfter, OnStart: func(pid int) { pgid <- pid }}
			if tc.callerKill {
				cfg.Kill = kill
			}
			start := time.Now()
			res := run(t, cfg)
			if res.Signal != int(syscall.SIGTERM) {
				t.Fatalf("the job's own process did not die of the stop: %+v", res)
			}
			if res.Leftover < 1 {
				t.Fatalf("Leftover = %d; want the child that ignored the stop counted, judged before its kill", res.Leftover)
			}
			if d := time.Since(start); d > stopJudge/2 {
				t.Fatalf("Run took %v: it waited for the judge, not the kill", d)
			}
		})
	}
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}
