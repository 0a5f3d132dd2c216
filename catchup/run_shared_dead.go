package catchup

import (
	"context"

	"github.com/catchup/catchup/store"
)

// takeDeadHolder marks interrupted, as a scan would (staleHolding), the run
// of another host that run r took its task's fleet-wide lock from because
// its heartbeat was older than the lease (store.TaskLock.TookFrom). Before,
// the lock changed hands and the run stayed running: a host frozen (or cut
// off) past its lease that resumed found its run still running at its next
// heartbeat and ran its command on beside the taker's, two runs of the task
// at once, its outcome recorded as if nothing had happened and its slot
// counted done (a backfill, or a fire of another slot, took the lock). Now
// its heartbeat finds its lease lost and stops the command, and its slot is
// missed: scan replays it. One read more, only when the lock was taken from
// a dead holder; a read or write that fails leaves it to the next scan.
// A fire still replays such a run's slot first when it is older than its
// own (deadBefore reads l.tookDead), as it did when the run stayed running.
func (l *lifecycle) takeDeadHolder(ctx context.Context, holder int64) {
	if holder == 0 {
		return
	}
	h, err := l.st.Run(ctx, holder)
	if err != nil || h.Status != store.StatusRunning || !leaseExpired(l.st, l.m, h) {
		return // ended meanwhile, or of this host: its own checks decide
	}
	if _, err := staleHolding(ctx, l.st, l.m, []store.Run{h}, true, l.req.Task); err == nil {
		l.tookDead = append(l.tookDead, h) // a fire replays its slot first when it is older (deadBefore)
	}
}
