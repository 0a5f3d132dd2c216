package catchup

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestEndIsBound: a run found dead ended at the latest at its recorded
// end; so did a retry found dead in its delay (recorded cut in it), but a
// retry a signal or its lost lease cut there recorded its own end, also
// when its outcome came after another host took it for dead.
func TestEndIsBound(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 3, 2, 2, 30, 0, 0, time.UTC)
	exit := 3
	for name, tc := range map[string]struct {
		r    store.Run
		want bool
	}{
		"rebooted":            {store.Run{Status: store.StatusInterrupted, EndedAt: end, Error: reasonRebooted}, true},
		"vanished":            {store.Run{Status: store.StatusInterrupted, EndedAt: end, Error: reasonVanished}, true},
		"retry rebooted":      {store.Run{Status: store.StatusInterrupted, EndedAt: end, Error: reasonRebootedInDelay, Reason: store.ReasonRetryCut}, true},
		"retry vanished":      {store.Run{Status: store.StatusInterrupted, EndedAt: end, Error: reasonVanished, Reason: store.ReasonRetryCut}, true},
		"retry lease ran out": {store.Run{Status: store.StatusInterrupted, EndedAt: end, Error: reasonNoHeartbeat + "a for longer than the lease", Reason: store.ReasonRetryCut}, true},
		"retry signal": {store.Run{Status: store.StatusInterrupted, EndedAt: end,
			Error: "stopped by a signal to catchup during its retry delay", Reason: store.ReasonRetryCut}, false},
		"retry lease lost, late": {store.Run{Status: store.StatusInterrupted, EndedAt: end, Reason: store.ReasonRetryCut,
			Error: "its lease was lost during its retry delay; " + store.LateOutcomeNote + reasonNoHeartbeat + "a for longer than the lease"}, false},
		"exit code": {store.Run{Status: store.StatusInterrupted, EndedAt: end, ExitCode: &exit}, false},
		"no end":    {store.Run{Status: store.StatusInterrupted, Error: reasonRebooted}, false},
		"failed":    {store.Run{Status: store.StatusFailed, EndedAt: end, ExitCode: &exit}, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := EndIsBound(tc.r); got != tc.want {
				t.Errorf("EndIsBound(%+v) = %v, want %v", tc.r, got, tc.want)
			}
		})
	}
}
