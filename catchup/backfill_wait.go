package catchup

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// sayWaiting says, once for a backfill's task (waitSaid), that its slot
// waits for the task's lock, and which run holds it when the ledger names
// one: the task's only other run recorded running (own is this slot's
// claim, 0 before it). A fire (waitSaid nil) says nothing.
func (l *lifecycle) sayWaiting(ctx context.Context, own int64) {
	if l.waitSaid == nil || *l.waitSaid {
		return
	}
	*l.waitSaid = true
	held := ""
	if h, ok := l.lockHolderRun(ctx, own); ok {
		slot := ""
		if !h.Slot.IsZero() {
			slot = " (slot " + h.Slot.UTC().Format(time.RFC3339) + ")"
		}
		held = fmt.Sprintf(", held by run %d%s on %s", h.ID, slot, h.Host)
	}
	l.m.notice("task %s: waiting for the lock%s; the backfill runs its slots when it is free", l.req.Task, held)
}

// lockHolderRun is the task's one run recorded running besides run own;
// false when there is none, several, or the ledger cannot say.
func (l *lifecycle) lockHolderRun(ctx context.Context, own int64) (store.Run, bool) {
	runs, err := l.st.Running(ctx)
	if err != nil {
		return store.Run{}, false
	}
	var holder store.Run
	n := 0
	for _, r := range runs {
		if r.Task == l.req.Task && r.ID != own {
			holder, n = r, n+1
		}
	}
	return holder, n == 1
}

// fleetHeldReason is the reason of a lock skip on a shared ledger: the
// task's ledger lock held by a run of another host, or by a run of this
// host that its lock here did not keep out, under another state directory
// (another user's crontab, another CATCHUP_STATE_DIR), named so that no one
// looks for another host.
func (l *lifecycle) fleetHeldReason(ctx context.Context, own int64) string {
	if h, ok := l.lockHolderRun(ctx, own); ok && h.Host == l.m.Host {
		return fmt.Sprintf("%s on this host (run %d, pid %d; another user's, or one under another state directory)",
			reasonLocked, h.ID, h.PID)
	}
	return reasonLocked + " on another host"
}
