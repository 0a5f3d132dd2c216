package catchup

import (
	"context"
	"fmt"

	"github.com/catchup/catchup/store"
)

// pauseWatch tells a backfill that its task was paused after it planned
// (a `catchup pause` from another shell, or from the job itself): it reads
// the task's pause again before each slot. A pause already live when the
// backfill began is no news: the slots before it run, as planned. One that
// begins later stops the task's later slots, which are left, not run.
type pauseWatch struct {
	st      store.Store
	m       Machine
	planned store.Task
	live    bool // the planned task was paused when the backfill began
}

func newPauseWatch(st store.Store, m Machine, t store.Task) *pauseWatch {
	return &pauseWatch{st: st, m: m, planned: t, live: Paused(t, m.Now())}
}

// stopped is why the task's next slot must not run ("" to run it): a pause
// that began since the backfill planned. A task that cannot be read is not
// taken for paused: the slot's claim meets the ledger's error itself.
func (w *pauseWatch) stopped(ctx context.Context) string {
	t, err := w.st.Task(ctx, w.planned.Name)
	if err != nil || !Paused(t, w.m.Now()) || (w.live && t.PausedAt.Equal(w.planned.PausedAt)) {
		return ""
	}
	return fmt.Sprintf("not run: the task was paused during the backfill (%s); backfill it again after catchup resume %s",
		pauseSpan(t), t.Name)
}
