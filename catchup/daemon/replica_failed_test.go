package daemon

import (
	"context"
	"testing"
	"time"
)

// TestReplicaHeldFireOfAFailedSlot: two daemons share a ledger (two on one
// host, or two replicas of a fleet) and fire the same line. r1 fires 10:00
// on time and its job fails; r2's fire of 10:00 was held back (behind the
// task's replays, or under --concurrency behind a long job) and comes at
// 10:04. It is the daemon's fire of that slot, the slot's own, as cron's
// is: a duplicate, recorded skipped, not run. Before, being late and not
// cron-shaped, it was taken for a retry by hand and ran the failing job a
// second time for one slot.
func TestReplicaHeldFireOfAFailedSlot(t *testing.T) {
	t.Parallel()
	for name, open := range replicaLedgers {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			st, db := open(t, dir)
			now := time.Date(2026, 3, 1, 9, 58, 0, 0, time.UTC)
			lockDir := replicaLockDir(st, dir)
			r1 := newReplica(t, st, db, dir, lockDir("r1"), "r1", &now)
			r2 := newReplica(t, st, db, dir, lockDir("r2"), "r2", &now)
			r1.load(t, "0 * * * *")
			r2.load(t, "0 * * * *")
			failing := []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_HOST" >> fires.log; exit 3`}
			for _, r := range []*replica{r1, r2} {
				r.task.Def.Argv, r.task.Req.Argv = failing, failing
			}
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("r1's log:\n%s\nr2's log:\n%s", r1.logs.String(), r2.logs.String())
				}
			})

			slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			now = slot.Add(500 * time.Millisecond)
			r1.d.fire(ctx, r1.task, slot)
			now = slot.Add(4 * time.Minute)
			r2.d.fire(ctx, r2.task, slot)

			if n := ran(t, dir)[slot.Format(time.RFC3339)]; n != 1 {
				t.Errorf("slot %s ran %d times; want once (a failing job fails once per slot)", slot.Format(time.RFC3339), n)
			}
			runs, err := st.SlotRuns(ctx, "job", slot, slot, 0)
			if err != nil {
				t.Fatal(err)
			}
			var failed, skipped int
			for _, r := range runs {
				switch r.Status {
				case "failed":
					failed++
				case "skipped":
					skipped++
				}
			}
			if failed != 1 || skipped != 1 {
				t.Errorf("slot %s has %d failed and %d skipped runs (%+v); want 1 failed, 1 skipped (the duplicate)", slot.Format(time.RFC3339), failed, skipped, runs)
			}
		})
	}
}
