package catchup

import (
	"context"
	"errors"
	"time"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// RegisterDaemonTask registers a task of `catchup daemon`'s crontab (an
// argv task: the daemon fires and replays it in-process). As for a crontab
// line found by scan, registration dates back to the task's first run, and
// a changed schedule counts from now.
func RegisterDaemonTask(ctx context.Context, st store.Store, m Machine, t store.Task) (store.Task, error) {
	now := m.Now()
	t.RegisteredAt, t.UpdatedAt = now, now
	t.NotifyCmd = redact.Command(t.NotifyCmd) // the daemon's replays run its line's (ScanRequest.NotifyCmds)
	old, err := st.Task(ctx, t.Name)
	switch {
	case err == nil:
		if old.RegisteredAt.Before(t.RegisteredAt) {
			t.RegisteredAt = old.RegisteredAt
		}
		t.SettledThrough = old.SettledThrough
		t.TZ = schedule.ZoneName(old.TZ, t.TZ)                   // UTC for Etc/UTC is no schedule change
		t.Schedule = schedule.ExprName(old.Schedule, t.Schedule) // nor 1-5 for MON-FRI
		switch {
		case !old.RetiredAt.IsZero():
			t.SettledThrough = now.Add(-time.Second) // retired (its line was removed), registered anew as of now
		case old.Schedule != "" && (old.Schedule != t.Schedule || old.TZ != t.TZ):
			t.SettledThrough = now
			m.notice("%s: it counts from now, and slots missed before now are not looked for (catchup backfill --task %s runs a past range)",
				scheduleChange(t.Name, old, "the line's ", t.Schedule, t.TZ), t.Name)
		}
	case !errors.Is(err, store.ErrNotFound):
		return t, err
	}
	first, err := st.EarliestRun(ctx, t.Name)
	if err != nil {
		return t, err
	}
	if !first.IsZero() && first.Before(t.RegisteredAt) {
		t.RegisteredAt = first
	}
	if t.SettledThrough.IsZero() {
		t.SettledThrough = t.RegisteredAt.Add(-time.Second)
	}
	return t, st.UpsertTask(ctx, t)
}
