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
