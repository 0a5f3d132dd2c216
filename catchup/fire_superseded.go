package catchup

import (
	"context"
	"errors"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// rereadAfterWait reads the task's registration again once this fire has
// waited for the task's lock (--wait, --on-busy wait), and marks the fire
// superseded when the task was registered meanwhile (another fire, a scan
// of its crontab, a `forget`): its line is then older than the one the
// ledger holds (a crontab edited while it waited), and registering it
// would take the task back to it. Worse, it would do so from the
// registration read before the wait, which still held its own line: the
// fire saw no change, recorded none of the newer schedule's missed slots
// expired, and the ledger, seeing one, moved the watermark past them
// without a word. A superseded fire still runs (or skips) its own slot,
// and registers nothing (registration): the newer registration stands.
// The comparison is of the ledger's own records, not of clocks, which a
// fleet's hosts do not share. A read fault leaves the fire as it was.
func (l *lifecycle) rereadAfterWait(ctx context.Context) {
	t, err := l.st.Task(ctx, l.req.Task)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return // still unregistered: this fire's registration is the first
	case err != nil:
		return
	}
	before := l.registered
	if before == nil {
		before = l.revive
	}
	if before != nil && t.UpdatedAt.Equal(before.UpdatedAt) && t.RetiredAt.Equal(before.RetiredAt) {
		return
	}
	l.superseded = true
	s := l.req.Schedule
	if s != nil && t.RetiredAt.IsZero() && !(schedule.SameExpr(t.Schedule, s.Expr()) && schedule.SameZone(t.TZ, s.Location().String())) {
		l.m.notice("task %s was registered anew while this fire waited for its lock (schedule %q in %s): "+
			"this fire runs its own slot and leaves that registration as it is", l.req.Task, t.Schedule, t.TZ)
	}
}
