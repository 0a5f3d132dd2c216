package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// RunningRun is a run still in progress, as `ls --running` shows it.
type RunningRun struct {
	Run store.Run
	For time.Duration // how long it has run
}

// Running lists the runs in progress, oldest first, leaving out records
// whose process is known to be gone (scan marks those interrupted).
func Running(ctx context.Context, st store.Store, m Machine) ([]RunningRun, error) {
	runs, err := st.Running(ctx)
	if err != nil {
		return nil, err
	}
	stale, err := staleAmong(ctx, st, m, runs, false)
	if err != nil {
		return nil, err
	}
	now := m.Now()
	var out []RunningRun
	for _, r := range runs {
		if !stale[r.ID] {
			out = append(out, RunningRun{Run: r, For: now.Sub(r.StartedAt)})
		}
	}
	return out, nil
}
