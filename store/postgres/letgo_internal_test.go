package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestLetGo: once a run has its lock, the ledger closes its connections
// within letGoAfter, so a long job holds none; a ledger call that comes
// sooner (a quick job's outcome, a scan's next replay) is made on the
// same connection, not a new one.
func TestLetGo(t *testing.T) {
	tests := map[string]struct {
		after    time.Duration
		quickJob bool // the outcome is written before letGoAfter
	}{
		"a long job holds no connection":  {after: 10 * time.Millisecond},
		"a quick job's outcome reuses it": {after: time.Hour, quickJob: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			p, err := Open(ctx, storetest.PostgresLedger(t))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			p.letGoAfter = tc.after
			id := storetest.MustClaim(t, p, store.Run{Task: "t", Trigger: store.TriggerManual, StartedAt: storetest.T0, Host: "h"})
			release, ok, err := p.LockTask(ctx, store.TaskLock{Task: "t", RunID: id, Now: storetest.T0})
			if err != nil || !ok {
				t.Fatalf("LockTask = %v, %v", ok, err)
			}
			defer release()
			opened := p.pool.Stat().NewConnsCount()
			if tc.quickJob {
				storetest.Finish(t, p, id, store.StatusSucceeded, storetest.T0.Add(time.Second))
				if n := p.pool.Stat().NewConnsCount(); n != opened {
					t.Errorf("the outcome opened %d new connections; want it on the lock's", n-opened)
				}
				return
			}
			deadline := time.Now().Add(10 * time.Second)
			for p.pool.Stat().TotalConns() != 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the ledger still holds %d connections 10 s after the lock; want none while the job runs",
						p.pool.Stat().TotalConns())
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}
