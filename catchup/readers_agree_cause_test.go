package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestExplainCauseAgreesWithList: for a missed slot, explain gives the
// cause ls --missed, metrics and scan give it (one function, slotCause,
// decides), also when the fire that stands for it found the lock held
// and recorded no slot.
func TestExplainCauseAgreesWithList(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 11, 13, 2, 0, 0, 0, time.UTC)
	at := slot.Add(30 * time.Second)
	locked := exitCodePtr(exitLocked)
	tests := map[string]struct {
		runs []store.Run // records of the slot (a zero Slot: a fire without a slot at its time)
		want string
	}{
		"lock held, slotless": {want: CauseLockBusy, runs: []store.Run{
			{Status: store.StatusSkipped, ExitCode: locked, Error: reasonLocked}}},
		"lock held, with its slot": {want: CauseLockBusy, runs: []store.Run{
			{Slot: slot, Status: store.StatusSkipped, ExitCode: locked, Error: reasonLocked}}},
		"unreachable, slotless": {want: CauseUnreachable, runs: []store.Run{
			{Status: store.StatusSkipped, ExitCode: locked, Error: "ledger unreachable", Reason: store.ReasonUnreachable}}},
		"lock file not to be opened, slotless": {want: CauseLockFile, runs: []store.Run{
			{Status: store.StatusSkipped, ExitCode: locked, Error: "cannot open the lock file", Reason: store.ReasonLockFile}}},
		"slotless dead running": {want: CauseInterrupted, runs: []store.Run{
			{Status: store.StatusRunning, BootID: "boot-0"}}},
		"duplicate fire of the slot, then a slotless lock skip": {want: CauseLockBusy, runs: []store.Run{
			{Slot: slot, Status: store.StatusSkipped, ExitCode: exitCodePtr(0), Error: ReasonDuplicate + "x"},
			{Status: store.StatusSkipped, ExitCode: locked, Error: reasonLocked}}},
		"interrupted, then a slotless lock skip": {want: CauseLockBusy, runs: []store.Run{
			{Slot: slot, Status: store.StatusInterrupted},
			{Status: store.StatusSkipped, ExitCode: locked, Error: reasonLocked}}},
		"a slotless lock skip, then its slot's run interrupted": {want: CauseInterrupted, runs: []store.Run{
			{Status: store.StatusSkipped, ExitCode: locked, Error: reasonLocked},
			{Slot: slot, Status: store.StatusInterrupted, Trigger: store.TriggerReplay}}},
		"no record": {want: CauseUnknown}, // no boot recorded
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			ctx := context.Background()
			reg := mustTime(t, "2026-11-12T02:00:00Z")
			registerDailyJob(t, st, reg, reg)
			runs := append([]store.Run(nil), tc.runs...)
			for i := range runs {
				runs[i].StartedAt = at.Add(time.Duration(i) * time.Second)
			}
			addJobRuns(t, st, runs)
			m := testMachine(db, mustTime(t, "2026-11-13T04:00:00Z"))
			rule := MissedRule{Tolerance: 5 * time.Minute}
			list, err := List(ctx, st, m, ListRequest{Rule: rule})
			if err != nil {
				t.Fatal(err)
			}
			var listed string
			for i, s := range list[0].Missed {
				if s.Equal(slot) {
					listed = list[0].Causes[i]
				}
			}
			x, err := Explain(ctx, st, m, ExplainRequest{Task: "job", Slot: slot, MissedRule: rule, MaxReplays: 100})
			if err != nil {
				t.Fatal(err)
			}
			if x.State != StateMissed || listed == "" {
				t.Fatalf("explain says %s (%s), ls lists the slot with cause %q: both should call it missed", x.State, x.Summary, listed)
			}
			if x.Cause != listed || x.Cause != tc.want {
				t.Errorf("explain's cause %q, ls --missed's %q; want both %q", x.Cause, listed, tc.want)
			}
		})
	}
}
