package catchup

import (
	"errors"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestLeftMissed: a fire leaves its slot to a replay only when it ran
// nothing for a reason a replay undoes (the lock held by another run, the
// ledger unreachable); a duplicate, a pause or a policy's skip settles it.
func TestLeftMissed(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		res  RunResult
		want bool
	}{
		"lock held by another run": {RunResult{Skipped: true, ExitCode: exitLocked, Run: store.Run{ExitCode: exitCodePtr(exitLocked)}}, true},
		// A fleet's claim given back: the run as claimed (no exit code).
		"lock held on another host":   {RunResult{Skipped: true, ExitCode: exitLocked, Run: store.Run{Status: store.StatusRunning}}, true},
		"--on-busy skip, settled":     {RunResult{Skipped: true, ExitCode: exitLocked, policySkip: true}, false},
		"ledger unreachable, not run": {RunResult{ExitCode: ExitInternal, LedgerFault: errors.New("down")}, true},
		"ran unrecorded":              {RunResult{Ran: true, LedgerFault: errors.New("down")}, false},
		"duplicate fire":              {RunResult{Skipped: true}, false},
		"ran and failed":              {RunResult{Ran: true, ExitCode: 1}, false},
		"ran":                         {RunResult{Ran: true}, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := tc.res.LeftMissed(); got != tc.want {
				t.Errorf("LeftMissed() = %v, want %v", got, tc.want)
			}
		})
	}
}
