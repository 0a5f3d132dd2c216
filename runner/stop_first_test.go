package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNoStartAfterTheStop: a stop that comes while Run sets the command up
// (its pipes, its environment) keeps it from starting. Before, Run looked
// at its context before the set-up only: a stop landing during it still
// started the command, after the caller had said it stops.
func TestNoStartAfterTheStop(t *testing.T) {
	tests := map[string]struct {
		stop func(cancel context.CancelFunc, g *Gate) // during the set-up
		gate bool
	}{
		"the stop context ends": {stop: func(cancel context.CancelFunc, _ *Gate) { cancel() }},
		"the gate closes":       {stop: func(_ context.CancelFunc, g *Gate) { g.Close() }, gate: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "started")
			stop, cancel := context.WithCancel(context.Background())
			defer cancel()
			g := &Gate{}
			cfg := Config{Argv: sh(`: > "$1"`, marker), Stdout: newSyncBuffer(""), Stop: stop,
				BeforeStart: func() { tc.stop(cancel, g) }}
			if tc.gate {
				cfg.Stop, cfg.Gate = nil, g
			}
			started := false
			cfg.OnStart = func(int) { started = true }
			res := run(t, cfg)
			if res.Started || started || !res.Stopped || res.ExitCode != exitCanceled {
				t.Errorf("Started=%v (OnStart told: %v) Stopped=%v ExitCode=%d, want not started, stopped, 125",
					res.Started, started, res.Stopped, res.ExitCode)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the command ran after the stop (it made %s)", marker)
			}
		})
	}
}

// TestGateClosesOnceTheStartsInProgressAreDone: Close waits for a start
// that has passed the gate until its OnStart has returned: a caller that
// closes it, then signals the jobs it was told of, misses none.
func TestGateClosesOnceTheStartsInProgressAreDone(t *testing.T) {
	g := &Gate{}
	inStart, closed := make(chan struct{}), make(chan struct{})
	release := make(chan struct{})
	var told bool
	done := make(chan Result, 1)
	go func() {
		res, _ := Run(context.Background(), Config{Argv: sh("exit 0"), Gate: g, OnStart: func(int) {
			close(inStart)
			<-release
			told = true
		}})
		done <- res
	}()
	<-inStart
	go func() { g.Close(); close(closed) }()
	// Close waits: a reader can no longer take the lock.
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(5 * time.Millisecond) {
		if g.mu.TryRLock() {
			g.mu.RUnlock()
		} else {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Close did not begin to wait within %v", hangGuard)
		}
	}
	select {
	case <-closed:
		t.Fatal("Close returned while a start through the gate had not told OnStart yet")
	default:
	}
	close(release)
	<-closed
	if !told {
		t.Fatal("Close returned before OnStart did")
	}
	if res := <-done; !res.Started {
		t.Fatalf("the start in progress when the gate closed: %+v, want started", res)
	}
	if res := run(t, Config{Argv: sh("exit 0"), Gate: g}); res.Started || !res.Stopped {
		t.Fatalf("a start after Close: Started=%v Stopped=%v, want not started, stopped", res.Started, res.Stopped)
	}
}
