package catchup

import (
	"context"
	"strings"
	"testing"
)

// TestReplayFailedMeanwhileRunsOnce: two scans read a task's missed slots
// at once; the other one replays a slot and it fails before this one
// claims it. The claim refuses only running, succeeded and expired
// holders, so this scan must see that the slot ran since it read the task
// and not run it a second time (a failing job runs once per slot); the
// report says whose run it was. Before, both scans ran it and both alerted.
func TestReplayFailedMeanwhileRunsOnce(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T13:30:00Z")
	at := mustTime(t, "2026-03-01T12:00:00Z")
	ledger := &doneBeforeClaim{Store: f.st, slot: at, failed: true}
	rep, err := Scan(context.Background(), ledger, f.m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	if !ledger.done {
		t.Fatal("the other scan never came in")
	}
	for _, line := range f.job.runs(t) {
		if strings.HasPrefix(line, "2026-03-01T12:00:00Z") {
			t.Errorf("this scan ran slot 12:00 again after the other scan's run of it failed: %q", f.job.runs(t))
		}
	}
	ts := rep.Tasks[0]
	if ts.Replayed != 2 || ts.Failed != 0 || ts.Skipped != 1 {
		t.Errorf("replayed %d, failed %d, skipped %d; want 2, 0, 1 (11:00 and 13:00 run, 12:00 ran elsewhere)", ts.Replayed, ts.Failed, ts.Skipped)
	}
	for a := range ts.SlotActions() {
		if a.Slot.Equal(at) && !strings.Contains(a.Reason, "ran since this scan read the task (run ") {
			t.Errorf("12:00: %s, reason %q; want it to say the slot ran since this scan read the task", a.Action, a.Reason)
		}
	}
	// The failure stands: the next scan does not replay it either.
	again, err := Scan(context.Background(), f.st, f.m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(again.Tasks[0].Missed); n != 0 {
		t.Errorf("the next scan finds %d missed slots, want 0", n)
	}
}
