package catchup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/catchup/catchup/store"
)

// ForgetRequest is one checked `catchup forget`.
type ForgetRequest struct {
	Task  string
	Purge bool // delete the task's history too
}

// ForgetResult is what forget did.
type ForgetResult struct {
	Task       store.Task // as it was
	PurgedRuns int64      // runs deleted by --purge
}

// Forget retires a task: scan stops replaying it and ls --missed stops
// listing it; its history stays, unless req.Purge deletes it. A later fire
// of the task registers it anew, as of that fire. A purge refuses a task
// with a run in progress.
func Forget(ctx context.Context, st store.Store, m Machine, req ForgetRequest) (ForgetResult, error) {
	t, err := st.Task(ctx, req.Task)
	if errors.Is(err, store.ErrNotFound) {
		return ForgetResult{}, fmt.Errorf("unknown task %s: see catchup ls", req.Task)
	}
	if err != nil {
		return ForgetResult{}, err
	}
	if req.Purge {
		running, err := st.Running(ctx)
		if err != nil {
			return ForgetResult{}, err
		}
		for _, r := range running {
			if r.Task == t.Name {
				return ForgetResult{}, fmt.Errorf("task %s has a run in progress (run %d): purge it when it has ended", t.Name, r.ID)
			}
		}
	}
	n, err := st.Forget(ctx, t.Name, m.Now(), req.Purge)
	return ForgetResult{Task: t, PurgedRuns: n}, err
}

// retireGone retires a crontab-discovered task whose line is gone from the
// crontab it was found in, with a notice (a dry run only says it would).
func retireGone(ctx context.Context, st store.Store, m Machine, t store.Task, path string, dry bool) error {
	if dry {
		m.notice("task %s: its line is gone from %s; a scan retires it", t.Name, path)
		return nil
	}
	if _, err := st.Forget(ctx, t.Name, m.Now(), false); err != nil {
		return err
	}
	m.notice("task %s: its line is gone from %s; retired, its slots are no longer replayed "+
		"(history kept: catchup forget --purge %s deletes it)", t.Name, path, t.Name)
	return nil
}

// silentSince flags a task registered by `run --cron` that had no fire of
// its own for longer than its catch-up window: its crontab line may be
// gone, and scan would replay it forever. It returns the warning, or "".
func silentSince(ctx context.Context, st store.Store, m Machine, t store.Task, rule MissedRule) (string, error) {
	if t.Source != "run" || t.Schedule == "" || Paused(t, m.Now()) {
		return "", nil
	}
	last, err := st.LastFire(ctx, t.Name)
	if err != nil {
		return "", err
	}
	if last.IsZero() {
		last = t.RegisteredAt
	}
	window := catchupWindow(t, rule)
	if m.Now().Sub(last) <= window {
		return "", nil
	}
	return fmt.Sprintf("no fire since %s (more than its catch-up window, %s); is its line gone? catchup forget %s",
		last.UTC().Format(time.RFC3339), formatWindow(window), t.Name), nil
}

// revival is the registration a fire without --cron gives a retired task
// that had a schedule: its old definition, as new from this fire.
func (l *lifecycle) revival(now, slot time.Time) *store.Task {
	if l.revive == nil || l.revive.Schedule == "" {
		return nil
	}
	t := *l.revive
	t.RegisteredAt, t.UpdatedAt = earliest(now, slot), now
	t.SettledThrough = t.RegisteredAt.Add(-time.Second)
	t.RetiredAt, t.PausedAt, t.PausedUntil = time.Time{}, time.Time{}, time.Time{}
	return &t
}
