package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// forgetBeforeClaim is a ledger on which `catchup forget job` (no --purge)
// commits just before the first claim with trigger onClaim: after the scan
// or the backfill read the task, before it claims a slot. At 12:02 forget
// records 10:00 and 11:00 expired, and leaves 12:00 unrecorded: younger
// than the tolerance, a fire of it may still come.
type forgetBeforeClaim struct {
	store.Store
	t       *testing.T
	m       Machine
	onClaim string
	forgot  ForgetResult
	done    bool
}

func (r *forgetBeforeClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !r.done && req.Run.Trigger == r.onClaim {
		r.done = true
		var err error
		if r.forgot, err = Forget(ctx, r.Store, r.m, ForgetRequest{Task: "job"}); err != nil {
			r.t.Fatalf("forget: %v", err)
		}
	}
	return r.Store.Claim(ctx, req)
}

// retiredRaceFixture is purgeRaceFixture at 12:02: slots 10:00 to 12:00
// are missed (12:00 by a scan whose tolerance is a minute).
func retiredRaceFixture(t *testing.T, backend string) (*runFixture, store.Store, *[]string) {
	t.Helper()
	f, st := purgeRaceFixture(t, backend)
	f.now = mustTime(t, "2026-03-01T12:02:00Z")
	var notices []string
	f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
	return f, st, &notices
}

// spared fails t unless forget left 12:00 unrecorded (the slot the race
// is about) and no later slot than the first fire ran.
func spared(t *testing.T, f *runFixture, racing *forgetBeforeClaim) {
	t.Helper()
	if !racing.done {
		t.Fatal("the forget never came: nothing was claimed")
	}
	if len(racing.forgot.Recent) != 1 || !racing.forgot.Recent[0].Equal(mustTime(t, "2026-03-01T12:00:00Z")) {
		t.Fatalf("forget left %v unrecorded; want 12:00 (the test needs a slot within the tolerance)", racing.forgot.Recent)
	}
	if runs := f.job.runs(t); len(runs) != 1 {
		t.Errorf("the job ran %q; want only the first fire (the task was retired before any claim)", runs)
	}
}

// TestForgetBeforeABackfillsClaimRunsNothing: a forget that commits after
// a backfill read the task, before its first claim, stops the backfill of
// the task, also of a slot younger than the tolerance that forget left
// unrecorded: the claim refuses, in its transaction, a task retired since
// read; nothing runs, its later slots are left, one notice says why.
// Before, that slot's claim was granted and it ran under the retired task.
func TestForgetBeforeABackfillsClaimRunsNothing(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			f, st, notices := retiredRaceFixture(t, backend)
			racing := &forgetBeforeClaim{Store: st, t: t, m: f.m, onClaim: store.TriggerBackfill}
			reps, err := Backfill(context.Background(), racing, f.m, BackfillRequest{Tasks: []string{"job"},
				From: mustTime(t, "2026-03-01T10:00:00Z"), To: mustTime(t, "2026-03-01T12:00:00Z"),
				Only: "missing", Order: "oldest", Concurrency: 1})
			if err != nil {
				t.Fatalf("backfill: %v", err)
			}
			spared(t, f, racing)
			if len(reps) != 1 || reps[0].Ran != 0 || reps[0].Left != 3 {
				t.Errorf("backfill reported %+v; want nothing run, 3 slots left", reps)
			}
			why := "task job was retired during the backfill (catchup forget): its 3 later slots are left, not run"
			if got := strings.Join(*notices, "\n"); strings.Count(got, "retired") != 1 || !strings.Contains(got, why) {
				t.Errorf("notices:\n%s\nwant one: %q", got, why)
			}
			stillRetired(t, f, st)
		})
	}
}

// TestForgetBeforeAReplaysClaimRunsNothing: a forget that commits after a
// scan read the task, before its first replay's claim, leaves none of its
// slots run, also one younger than forget's tolerance (the scan's is a
// minute) that forget left unrecorded: the claim refuses a task retired
// since read; the scan leaves the rest, and warns once. Before, that
// slot's claim was granted and it ran under the retired task.
func TestForgetBeforeAReplaysClaimRunsNothing(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			f, st, _ := retiredRaceFixture(t, backend)
			racing := &forgetBeforeClaim{Store: st, t: t, m: f.m, onClaim: store.TriggerReplay}
			req := scanRequest()
			req.MissedRule.Tolerance = time.Minute
			rep, err := Scan(context.Background(), racing, f.m, req)
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			spared(t, f, racing)
			why := "task job was retired since this scan read it (catchup forget, or its line gone): not replayed"
			if len(rep.Tasks) != 1 || rep.Tasks[0].Replayed != 0 ||
				strings.Count(strings.Join(rep.Tasks[0].Warnings, "\n"), "retired") != 1 ||
				!strings.Contains(strings.Join(rep.Tasks[0].Warnings, "\n"), why) {
				t.Errorf("scan reported %+v; want nothing replayed, one warning %q", rep.Tasks, why)
			}
			stillRetired(t, f, st)
		})
	}
}
