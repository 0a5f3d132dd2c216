package catchup

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// purgeBeforeClaim is a ledger on which `catchup forget --purge` of task
// "job" commits just before the first replay's claim: after the scan read
// the task again (readAgain), before its replay claims the slot.
type purgeBeforeClaim struct {
	store.Store
	t      *testing.T
	m      Machine
	purged bool
}

func (p *purgeBeforeClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !p.purged && req.Run.Trigger == store.TriggerReplay {
		p.purged = true
		if _, err := p.Store.Forget(ctx, "job", p.m.Now(), true); err != nil {
			p.t.Fatalf("forget --purge: %v", err)
		}
	}
	return p.Store.Claim(ctx, req)
}

// TestPurgeBeforeAReplaysClaimRunsNothing: a forget --purge that commits
// between the scan's read of the task and its replay's claim wins: the
// claim (which registers nothing) refuses the task it no longer finds,
// the scan says the task was forgotten and runs nothing, and the ledger
// holds neither the task nor a run of it. Before, the claim re-created
// the task (without a schedule) and the purged task's slot ran.
func TestPurgeBeforeAReplaysClaimRunsNothing(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			var st store.Store = f.st
			if backend == "postgres" {
				st = testPostgres(t)
			}
			req := f.request(t)
			if _, err := Run(ctx, st, nil, f.m, req); err != nil {
				t.Fatalf("Run: %v", err)
			}
			f.now = mustTime(t, "2026-03-01T12:30:00Z")
			racing := &purgeBeforeClaim{Store: st, t: t, m: f.m}
			rep, err := Scan(ctx, racing, f.m, scanRequest())
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			if !racing.purged {
				t.Fatal("the purge never came: the scan claimed no replay")
			}
			if runs := f.job.runs(t); len(runs) != 1 {
				t.Errorf("the job ran %q; want only the first fire (the purged task's slots must not run)", runs)
			}
			if _, err := st.Task(ctx, "job"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("task job after the scan: err %v; want it still purged (not found)", err)
			}
			hist, err := st.History(ctx, store.HistoryFilter{Task: "job", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != 0 {
				t.Errorf("the ledger holds %d runs of the purged task: %+v; want none", len(hist), hist)
			}
			want := "task job was forgotten since this scan read it (catchup forget); not scanning it"
			if len(rep.Tasks) != 1 || rep.Tasks[0].Replayed != 0 || !strings.Contains(strings.Join(rep.Tasks[0].Warnings, "\n"), want) {
				t.Errorf("scan reported %+v; want task job not replayed, with the warning %q", rep.Tasks, want)
			}
		})
	}
}
