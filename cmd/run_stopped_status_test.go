package cmd

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/catchup/catchup/catchup"
)

// TestRunStoppedBeforeItsCommandExits128PlusN: a run a stop signal kept
// from starting its command exits 128+N, as the command would have died
// of it, not the runner's 125; any other result keeps its own status.
func TestRunStoppedBeforeItsCommandExits128PlusN(t *testing.T) {
	stopped, cancel := context.WithCancelCause(context.Background())
	cancel(stopSignal{syscall.SIGTERM})
	tests := map[string]struct {
		ctx  context.Context
		res  catchup.RunResult
		want int
	}{
		"stopped by SIGTERM before the start":    {stopped, catchup.RunResult{Stopped: true, ExitCode: 125}, 143},
		"not started for another end of context": {context.Background(), catchup.RunResult{Stopped: true, ExitCode: 125}, 125},
		"the command died of the signal":         {stopped, catchup.RunResult{Ran: true, ExitCode: 143}, 143},
		"the command exited 3 after the signal":  {stopped, catchup.RunResult{Ran: true, ExitCode: 3}, 3},
		"the command succeeded":                  {context.Background(), catchup.RunResult{Ran: true}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := runStatus(tc.ctx, tc.res)
			got := 0
			var es *exitStatus
			if errors.As(err, &es) {
				got = es.code
			} else if err != nil {
				t.Fatalf("runStatus: %v", err)
			}
			if got != tc.want {
				t.Errorf("exit %d, want %d", got, tc.want)
			}
		})
	}
}
