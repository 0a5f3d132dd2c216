package catchup

import (
	"context"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// claimAfterRunning is a ledger on which another host's fire of task "job"
// claims its slot just after forget --purge has read the running runs
// (and found none of the task), before its purge.
type claimAfterRunning struct {
	store.Store
	t       *testing.T
	slot    store.Run
	claimed int64
}

func (c *claimAfterRunning) Running(ctx context.Context) ([]store.Run, error) {
	runs, err := c.Store.Running(ctx)
	if err == nil && c.claimed == 0 {
		res, err := c.Store.Claim(ctx, store.ClaimRequest{Run: c.slot})
		if err != nil || !res.Claimed {
			c.t.Fatalf("the other host's claim = %+v, %v", res, err)
		}
		c.claimed = res.Run.ID
	}
	return runs, err
}

// TestPurgeAfterAClaimRefuses: forget --purge refuses a task that another
// host's fire claimed after the purge looked for runs in progress, and
// deletes nothing: the claim's run, its slot and its task stay. Before,
// the purge deleted them while that fire's job ran, and a third fire of
// the task found its slot and lock free.
func TestPurgeAfterAClaimRefuses(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			var st store.Store = f.st
			if backend == "postgres" {
				st = testPostgres(t)
			}
			if _, err := Run(ctx, st, nil, f.m, f.request(t)); err != nil {
				t.Fatalf("Run: %v", err)
			}
			f.now = mustTime(t, "2026-03-01T10:00:05Z")
			slot := mustTime(t, "2026-03-01T10:00:00Z")
			racing := &claimAfterRunning{Store: st, t: t,
				slot: store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: f.now, Host: "other"}}
			_, err := Forget(ctx, racing, f.m, ForgetRequest{Task: "job", Purge: true})
			if racing.claimed == 0 {
				t.Fatal("the other host's claim never came")
			}
			if err == nil || !strings.Contains(err.Error(), "task job has a run in progress") {
				t.Fatalf("Forget --purge = %v; want it refused: task job has a run in progress", err)
			}
			if _, err := st.Task(ctx, "job"); err != nil {
				t.Errorf("task job after the refused purge: %v; want it kept", err)
			}
			r, err := st.Run(ctx, racing.claimed)
			if err != nil || r.Status != store.StatusRunning {
				t.Errorf("the other host's run after the refused purge = %+v, %v; want it running", r, err)
			}
		})
	}
}
