package catchup

import (
	"context"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// retireRace is a ledger on which `catchup forget job` (no --purge)
// commits at the first claim of a slot with trigger onClaim: the task is
// retired, its missed slots recorded expired, while a scan replays it or a
// backfill runs it.
type retireRace struct {
	store.Store
	t       *testing.T
	m       Machine
	onClaim string
	retired bool
}

func (r *retireRace) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !r.retired && req.Run.Trigger == r.onClaim {
		r.retired = true
		if _, err := Forget(ctx, r.Store, r.m, ForgetRequest{Task: "job"}); err != nil {
			r.t.Fatalf("forget: %v", err)
		}
	}
	return r.Store.Claim(ctx, req)
}

// stillRetired fails t unless task "job" is still retired, and no slot
// after 10:00 ran: a retirement stands until a fire registers the task
// again, and neither a replay nor a backfill is a fire (T1).
func stillRetired(t *testing.T, f *runFixture, st store.Store) {
	t.Helper()
	cur, err := st.Task(context.Background(), "job")
	if err != nil {
		t.Fatalf("task job: %v", err)
	}
	if cur.RetiredAt.IsZero() {
		t.Errorf("task job is registered again (as of %s); want it still retired", rfc(cur.RegisteredAt))
	}
	for _, r := range f.job.runs(t) {
		if strings.Contains(r, "T11:") || strings.Contains(r, "T12:") {
			t.Errorf("the job ran %q after the task was retired; want no later slot run", r)
		}
	}
	rep, err := Scan(context.Background(), st, f.m, scanRequest())
	if err != nil {
		t.Fatalf("a later scan: %v", err)
	}
	if len(rep.Tasks) != 0 {
		t.Errorf("a later scan scanned %+v; want the retired task left alone", rep.Tasks)
	}
}

// TestForgetDuringAReplayKeepsItRetired: a forget that commits at a scan's
// first replay of an argv task leaves it retired: the replay's claim (and
// the next slots') registers nothing, and is refused as expired.
func TestForgetDuringAReplayKeepsItRetired(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			f, st := purgeRaceFixture(t, backend)
			racing := &retireRace{Store: st, t: t, m: f.m, onClaim: store.TriggerReplay}
			rep, err := Scan(context.Background(), racing, f.m, scanRequest())
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			if !racing.retired {
				t.Fatal("the forget never came: the scan claimed no replay")
			}
			if len(rep.Tasks) != 1 || rep.Tasks[0].Replayed != 0 {
				t.Errorf("scan reported %+v; want nothing replayed", rep.Tasks)
			}
			if runs := f.job.runs(t); len(runs) != 1 {
				t.Errorf("the job ran %q; want only the first fire", runs)
			}
			stillRetired(t, f, racing.Store)
		})
	}
}

// TestForgetDuringABackfillKeepsItRetired: a forget that commits during a
// backfill of an argv task (at its first slot's claim) leaves it retired:
// the backfill's claims register nothing, and each slot, recorded expired
// since the backfill began, is skipped, not run.
func TestForgetDuringABackfillKeepsItRetired(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			f, st := purgeRaceFixture(t, backend)
			racing := &retireRace{Store: st, t: t, m: f.m, onClaim: store.TriggerBackfill}
			reps, err := Backfill(context.Background(), racing, f.m, BackfillRequest{Tasks: []string{"job"},
				From: mustTime(t, "2026-03-01T10:00:00Z"), To: mustTime(t, "2026-03-01T12:00:00Z"),
				Only: "missing", Order: "oldest", Concurrency: 1})
			if err != nil {
				t.Fatalf("backfill: %v", err)
			}
			if !racing.retired {
				t.Fatal("the forget never came: the backfill claimed no slot")
			}
			if len(reps) != 1 || reps[0].Ran != 0 {
				t.Errorf("backfill reported %+v; want nothing run", reps)
			}
			if runs := f.job.runs(t); len(runs) != 1 {
				t.Errorf("the job ran %q; want only the first fire", runs)
			}
			stillRetired(t, f, racing.Store)
		})
	}
}
