package catchup

import (
	"testing"

	"github.com/catchup/catchup/store"
)

// TestOutcomeTextTellsALateOutcome: a run whose outcome came after it was
// taken for dead (its host's lease ran out, and a replay of its slot may
// have run meanwhile) is told so by explain, whatever its outcome; any
// other run reads as before.
func TestOutcomeTextTellsALateOutcome(t *testing.T) {
	t.Parallel()
	late := store.LateOutcomeNote + "no heartbeat from b for longer than the lease"
	tests := map[string]struct {
		run  store.Run
		want string
	}{
		"a succeeded run that came back late": {
			store.Run{ID: 434, Status: store.StatusSucceeded, ExitCode: exitCodePtr(0), Error: late},
			"run 434 succeeded (exit 0); " + late + ": its slot may have run twice",
		},
		"a failed one, its own error first": {
			store.Run{ID: 7, Status: store.StatusFailed, ExitCode: exitCodePtr(1), Error: "exit status 1; " + late},
			"run 7 failed (exit 1); " + late + ": its slot may have run twice",
		},
		"a timed-out one": {
			store.Run{ID: 8, Status: store.StatusTimeout, ExitCode: exitCodePtr(124), Error: late},
			"run 8 timed out (exit 124); " + late + ": its slot may have run twice",
		},
		"a plain success": {
			store.Run{ID: 9, Status: store.StatusSucceeded, ExitCode: exitCodePtr(0)},
			"run 9 succeeded (exit 0)",
		},
		"an interruption tells its own error": {
			store.Run{ID: 10, Status: store.StatusInterrupted, Error: "no heartbeat from b for longer than the lease"},
			"run 10 interrupted: no heartbeat from b for longer than the lease",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := outcomeText(tc.run); got != tc.want {
				t.Errorf("outcomeText = %q\n want %q", got, tc.want)
			}
		})
	}
}
