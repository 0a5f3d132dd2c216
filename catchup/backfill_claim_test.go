package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// doneBeforeClaim is a ledger where host b runs a slot, and succeeds (or
// fails: failed), just before this process claims it: after a backfill
// listed the slot as missing, or a scan read it missed.
type doneBeforeClaim struct {
	store.Store
	slot   time.Time
	failed bool
	done   bool
}

func (d *doneBeforeClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !d.done && req.Run.Slot.Equal(d.slot) {
		d.done = true
		code, status := 0, store.StatusSucceeded
		if d.failed {
			code, status = 3, store.StatusFailed
		}
		if _, err := d.Store.AddRun(ctx, store.Run{Task: req.Run.Task, Slot: d.slot, Trigger: store.TriggerManual,
			Status: status, Attempt: 1, ExitCode: &code, StartedAt: req.Run.StartedAt,
			EndedAt: req.Run.StartedAt, Host: "b"}); err != nil {
			return store.ClaimResult{}, err
		}
	}
	return d.Store.Claim(ctx, req)
}

// TestBackfillOfSlotDoneMeanwhileNamesOnlyAll: a slot another host ran
// after the backfill began is not run again, and the notice names
// backfill's way to run it anyway (--only all), not run's --force, which
// backfill has not.
func TestBackfillOfSlotDoneMeanwhileNamesOnlyAll(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T09:30:00Z")
	slot := mustTime(t, "2026-03-01T07:00:00Z")
	var notices []string
	f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
	reps, err := Backfill(context.Background(), &doneBeforeClaim{Store: f.st, slot: slot}, f.m, BackfillRequest{
		Tasks: []string{"job"}, From: slot, To: slot, Only: "missing", Order: "oldest", Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 || reps[0].Skipped != 1 || reps[0].Ran != 0 {
		t.Fatalf("report %+v, want the slot skipped", reps)
	}
	all := strings.Join(notices, "\n")
	if !strings.Contains(all, "already succeeded") || !strings.Contains(all, "backfill --only all runs it anyway") {
		t.Errorf("notices %q: want the slot's success and --only all named", all)
	}
	if strings.Contains(all, "--force") {
		t.Errorf("notices %q name --force, which backfill has not", all)
	}
}
