package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// endedBeforeClaim is a ledger on which another host claims slot and
// ends its run between this scan's read of the task and its claim of the
// slot. cut: the run is recorded interrupted, as a run whose host this
// scan's fleet took for dead (its clock behind by more than the lease)
// before its job started; it ran nothing, so the slot is still missed.
// Else it is recorded failed.
type endedBeforeClaim struct {
	store.Store
	slot time.Time
	cut  bool
	done bool
}

func (d *endedBeforeClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !d.done && req.Run.Slot.Equal(d.slot) {
		d.done = true
		other := req
		other.Run.Host, other.Run.PID = "b", 1
		c, err := d.Store.Claim(ctx, other)
		if err != nil || !c.Claimed {
			return store.ClaimResult{}, fmt.Errorf("the other host's claim: %+v, %v", c, err)
		}
		if d.cut {
			_, err = d.Store.Interrupt(ctx, c.Run.ID, req.Run.StartedAt, reasonNoHeartbeat+"b for longer than the lease")
		} else {
			err = d.Store.Finish(ctx, c.Run.ID, store.Outcome{Status: store.StatusFailed, EndedAt: req.Run.StartedAt, ExitCode: exitCodePtr(3)})
		}
		if err != nil {
			return store.ClaimResult{}, err
		}
	}
	return d.Store.Claim(ctx, req)
}

// TestReplayInterruptedMeanwhileRunsIt: a slot whose other run was cut
// (interrupted) after this scan read the task, before this one claimed it,
// is still missed: the claim is granted, and this scan runs it, once.
// Before, the scan took the cut run for a run "since" and gave its claim
// back, its watermark then passed the slot, and the slot was never run nor
// listed missed again (a fleet's scans with clocks 80 s apart lost one).
func TestReplayInterruptedMeanwhileRunsIt(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) { replayInterruptedMeanwhile(t, backend) })
	}
}

func replayInterruptedMeanwhile(t *testing.T, backend string) {
	f, st := purgeRaceFixture(t, backend)
	at := mustTime(t, "2026-03-01T11:00:00Z")
	ledger := &endedBeforeClaim{Store: st, slot: at, cut: true}
	rep, err := Scan(context.Background(), ledger, f.m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	if !ledger.done {
		t.Fatal("the other host's run never came in")
	}
	n := 0
	for _, line := range f.job.runs(t) {
		if strings.HasPrefix(line, "2026-03-01T11:00:00Z") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("slot 11:00, whose other run was cut before its job started, ran %d times, want once: %q", n, f.job.runs(t))
	}
	if ts := rep.Tasks[0]; ts.Replayed != 3 || ts.Skipped != 0 {
		t.Errorf("replayed %d, skipped %d; want 3, 0 (10:00, 11:00 and 12:00 run)", ts.Replayed, ts.Skipped)
	}
	again, err := Scan(context.Background(), st, f.m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(again.Tasks[0].Missed); n != 0 {
		t.Errorf("the next scan finds %d missed slots, want 0", n)
	}
}

// TestReplayFailedMeanwhileHoldsTheWatermark: a slot whose other run
// failed after this scan read the task is not run again by this scan, but
// it stays failed: scan --retry-failed still finds it (the watermark does
// not pass a failed slot). Before, the claim given back counted as
// settling the slot, and the watermark passed it.
func TestReplayFailedMeanwhileHoldsTheWatermark(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) { replayFailedMeanwhileHolds(t, backend) })
	}
}

func replayFailedMeanwhileHolds(t *testing.T, backend string) {
	f, st := purgeRaceFixture(t, backend)
	at := mustTime(t, "2026-03-01T11:00:00Z")
	if _, err := Scan(context.Background(), &endedBeforeClaim{Store: st, slot: at}, f.m, scanRequest()); err != nil {
		t.Fatal(err)
	}
	req := scanRequest()
	req.MissedRule.RetryFailed = true
	again, err := Scan(context.Background(), st, f.m, req)
	if err != nil {
		t.Fatal(err)
	}
	if m := again.Tasks[0].Missed; len(m) != 1 || !m[0].Equal(at) {
		t.Errorf("scan --retry-failed after the race finds %v, want the failed slot 11:00", m)
	}
}

// TestReadBackGivenBackKeepsAFailedSlotFailed: a crontab line's run that
// gave its claim back because another run of the slot ended since the
// scan read the task is judged by that run: a failure leaves the slot
// failed (not settled: the watermark stays below it), a success settles it.
func TestReadBackGivenBackKeepsAFailedSlotFailed(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		status     string
		wantFailed bool
	}{
		"failed since":    {store.StatusFailed, true},
		"timed out since": {store.StatusTimeout, true},
		"succeeded since": {store.StatusSucceeded, false},
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			ctx := context.Background()
			st, _ := testLedger(t)
			at := mustTime(t, "2026-03-01T12:00:00Z")
			code := 3
			if tc.status == store.StatusSucceeded {
				code = 0
			}
			other, err := st.AddRun(ctx, store.Run{Task: "job", Slot: at, Trigger: store.TriggerReplay, Status: tc.status,
				Attempt: 1, ExitCode: &code, StartedAt: at, EndedAt: at, Host: "b"})
			if err != nil {
				t.Fatal(err)
			}
			zero := 0
			own, err := st.AddRun(ctx, store.Run{Task: "job", Slot: at, Trigger: store.TriggerReplay, Status: store.StatusSkipped,
				Attempt: 1, ExitCode: &zero, StartedAt: at, EndedAt: at, Host: "testhost",
				Error: fmt.Sprintf(reasonRanSince+"this scan read the task (run %d on b, %s)", other, tc.status)})
			if err != nil {
				t.Fatal(err)
			}
			a := readBack(ctx, st, "job", "testhost", 0, SlotAction{Slot: at, Action: ActionReplayed}, "the next scan looks again")
			if a.Action != ActionSkipped || a.RunID != own || a.held || a.failedMeanwhile != tc.wantFailed {
				t.Errorf("read back: %s run %d held %v failedMeanwhile %v; want skipped run %d, not held, failedMeanwhile %v",
					a.Action, a.RunID, a.held, a.failedMeanwhile, own, tc.wantFailed)
			}
		})
	}
}
