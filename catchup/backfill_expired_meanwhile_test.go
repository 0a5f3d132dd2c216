package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// expiredBeforeClaim is a ledger where another process records a slot
// expired (a schedule change) just before this process claims it: after a
// backfill listed the slot as missing.
type expiredBeforeClaim struct {
	store.Store
	slot time.Time
	done bool
}

func (e *expiredBeforeClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !e.done && req.Run.Slot.Equal(e.slot) {
		e.done = true
		if _, err := e.Store.AddRuns(ctx, []store.Run{{Task: req.Run.Task, Slot: e.slot, Trigger: store.TriggerReplay,
			Status: store.StatusExpired, StartedAt: req.Run.StartedAt, EndedAt: req.Run.StartedAt, Host: "b",
			Reason: store.ReasonScheduleChanged}}); err != nil {
			return store.ClaimResult{}, err
		}
	}
	return e.Store.Claim(ctx, req)
}

// TestBackfillOfSlotExpiredMeanwhileSaysNothingRan: a slot recorded
// expired after the backfill began is not run, and the backfill says it
// was recorded expired, why, and that nothing ran. Before, it said the
// slot ran since the backfill began (run N, expired).
func TestBackfillOfSlotExpiredMeanwhileSaysNothingRan(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T09:30:00Z")
	slot := mustTime(t, "2026-03-01T07:00:00Z")
	var notices []string
	f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
	reps, err := Backfill(context.Background(), &expiredBeforeClaim{Store: f.st, slot: slot}, f.m, BackfillRequest{
		Tasks: []string{"job"}, From: slot, To: slot, Only: "missing", Order: "oldest", Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 || reps[0].Skipped != 1 || reps[0].Ran != 0 || len(reps[0].Actions) != 1 {
		t.Fatalf("report %+v, want the slot skipped", reps)
	}
	why := "slot recorded expired since this backfill began (run "
	tail := ", reason " + store.ReasonScheduleChanged + "): nothing ran"
	if r := reps[0].Actions[0].Reason; !strings.HasPrefix(r, why) || !strings.HasSuffix(r, tail) {
		t.Errorf("reason %q; want %q...%q", r, why, tail)
	}
	if all := strings.Join(notices, "\n"); strings.Contains(all, "ran since") || !strings.Contains(all, tail+"; not running it") {
		t.Errorf("notices:\n%s\nwant it recorded expired, not ran", all)
	}
	if runs := f.job.runs(t); len(runs) != 1 {
		t.Errorf("the job ran %q; want only the first fire", runs)
	}
}
