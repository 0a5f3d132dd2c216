package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestExplainAgreesWithScan: for one slot and one set of its records,
// explain says the slot is missed exactly when scan --dry-run would
// replay it, by the same rule (slotSettled), with and without
// --retry-failed.
func TestExplainAgreesWithScan(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 11, 13, 2, 0, 0, 0, time.UTC)
	at := slot.Add(time.Second)
	locked := exitCodePtr(exitLocked)
	tests := map[string]struct {
		retry  bool
		passed bool        // the task's watermark lies at the slot: scan looks at it no more
		runs   []store.Run // records of the slot (a zero Slot: a fire without a slot at its time)
	}{
		"no record":               {},
		"succeeded":               {runs: []store.Run{{Slot: slot, Status: store.StatusSucceeded, ExitCode: exitCodePtr(0)}}},
		"failed":                  {runs: []store.Run{{Slot: slot, Status: store.StatusFailed, ExitCode: exitCodePtr(1)}}},
		"failed, --retry-failed":  {retry: true, runs: []store.Run{{Slot: slot, Status: store.StatusFailed, ExitCode: exitCodePtr(1)}}},
		"timeout, --retry-failed": {retry: true, runs: []store.Run{{Slot: slot, Status: store.StatusTimeout}}},
		"succeeded then failed, --retry-failed": {retry: true, runs: []store.Run{
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: exitCodePtr(0)},
			{Slot: slot, Status: store.StatusFailed, ExitCode: exitCodePtr(1), Trigger: store.TriggerManual}}},
		"failed then succeeded, --retry-failed": {retry: true, runs: []store.Run{
			{Slot: slot, Status: store.StatusFailed, ExitCode: exitCodePtr(1)},
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: exitCodePtr(0), Trigger: store.TriggerRetry}}},
		"running on this boot":      {runs: []store.Run{{Slot: slot, Status: store.StatusRunning}}},
		"dead running (older boot)": {runs: []store.Run{{Slot: slot, Status: store.StatusRunning, BootID: "boot-0"}}},
		"interrupted":               {runs: []store.Run{{Slot: slot, Status: store.StatusInterrupted}}},
		"skipped, lock held":        {runs: []store.Run{{Slot: slot, Status: store.StatusSkipped, ExitCode: locked, Error: reasonLocked}}},
		"skipped by a policy":       {runs: []store.Run{{Slot: slot, Status: store.StatusSkipped}}},
		"expired":                   {runs: []store.Run{{Slot: slot, Status: store.StatusExpired}}},
		"slotless, lock held":       {runs: []store.Run{{Status: store.StatusSkipped, ExitCode: locked, Error: reasonLocked}}},
		"slotless, succeeded":       {runs: []store.Run{{Status: store.StatusSucceeded, ExitCode: exitCodePtr(0)}}},
		"slotless, dead running":    {runs: []store.Run{{Status: store.StatusRunning, BootID: "boot-0"}}},
		"failed, slotless succeeded, --retry-failed": {retry: true, runs: []store.Run{
			{Slot: slot, Status: store.StatusFailed, ExitCode: exitCodePtr(1)},
			{Status: store.StatusSucceeded, ExitCode: exitCodePtr(0)}}},
		"succeeded then failed, slotless lock held, --retry-failed": {retry: true, runs: []store.Run{
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: exitCodePtr(0)},
			{Slot: slot, Status: store.StatusFailed, ExitCode: exitCodePtr(1), Trigger: store.TriggerManual},
			{Status: store.StatusSkipped, ExitCode: locked, Error: reasonLocked}}},
		"failed behind the watermark, --retry-failed": {retry: true, passed: true, runs: []store.Run{
			{Slot: slot, Status: store.StatusFailed, ExitCode: exitCodePtr(1)}}},
		"lock held behind the watermark": {passed: true, runs: []store.Run{
			{Slot: slot, Status: store.StatusSkipped, ExitCode: locked, Error: reasonLocked}}},
		"dead running, slotless succeeded": {runs: []store.Run{
			{Slot: slot, Status: store.StatusRunning, BootID: "boot-0"},
			{Status: store.StatusSucceeded, ExitCode: exitCodePtr(0)}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			ctx := context.Background()
			reg := mustTime(t, "2026-11-12T02:00:00Z")
			watermark := reg
			if tc.passed {
				watermark = slot
			}
			registerDailyJob(t, st, reg, watermark)
			runs := append([]store.Run(nil), tc.runs...)
			for i := range runs {
				runs[i].StartedAt = at.Add(time.Duration(i) * time.Minute)
			}
			addJobRuns(t, st, runs)
			m := testMachine(db, mustTime(t, "2026-11-13T04:00:00Z"))
			rule := MissedRule{Tolerance: 5 * time.Minute, RetryFailed: tc.retry}
			rep, err := Scan(ctx, st, m, ScanRequest{DryRun: true, MissedRule: rule, MaxReplays: 100})
			if err != nil {
				t.Fatal(err)
			}
			replays := false
			for _, tr := range rep.Tasks {
				for _, s := range tr.Missed {
					replays = replays || s.Equal(slot)
				}
			}
			x, err := Explain(ctx, st, m, ExplainRequest{Task: "job", Slot: slot, MissedRule: rule})
			if err != nil {
				t.Fatal(err)
			}
			if (x.State == StateMissed) != replays {
				t.Errorf("explain says %s (%s); scan --dry-run replays the slot: %v", x.State, x.Summary, replays)
			}
		})
	}
}
