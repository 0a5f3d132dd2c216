package daemon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// retireGone retires, at the daemon's start, the tasks registered from its
// crontabs (by path) whose lines are no longer there: removed while the
// daemon was stopped, as a reload retires a line removed while it runs.
// Not on a shared ledger: the daemons of other services may use it with
// crontabs of their own at the same path (in their containers), and a
// path does not tell them apart; there, `catchup forget` retires a line
// removed while every replica was stopped.
func (s *tasks) retireGone(keep map[string]bool) {
	if len(s.d.cfg.Watch) == 0 || s.d.cfg.Store == nil || s.d.cfg.Store.Shared() {
		return
	}
	ctx := context.WithoutCancel(s.ctx)
	all, err := s.d.cfg.Store.Tasks(ctx)
	if err != nil {
		s.d.cfg.Log.Error("cannot read the ledger's tasks to retire removed lines: "+err.Error(), "event", "error")
		return
	}
	for _, ts := range all {
		t := ts.Task
		if keep[t.Name] || !t.RetiredAt.IsZero() || !s.fromOurCrontabs(t.Source) {
			continue
		}
		s.retire(t.Name, nil, nil)
	}
}

// fromOurCrontabs reports whether source names a line of this daemon's crontabs.
func (s *tasks) fromOurCrontabs(source string) bool {
	for _, p := range s.d.cfg.Watch {
		if strings.HasPrefix(source, "daemon:"+p+":") {
			return true
		}
	}
	return false
}

// retire retires task name, whose line is gone (t: the line, when this
// daemon ran it), and records the slots it missed until then expired, once
// after is closed (its loop's fires and replays have ended; nil: at once).
func (s *tasks) retire(name string, t *Task, after <-chan struct{}) {
	now := s.d.cfg.Machine.Now()
	reg, err := s.d.cfg.Store.Task(context.WithoutCancel(s.ctx), name)
	s.retireOrRetry(name)
	if err != nil {
		s.d.cfg.Log.Error("task "+name+": cannot read its registration to record the slots it missed: "+err.Error(), "event", "error", "task", name)
		return
	}
	s.leaveRetired(name, t, reg, after, now)
}

// retireOrRetry retires task name in the ledger, and logs it; one the
// ledger refuses (a full disk, a locked SQLite file, an unreachable
// server) is tried again every reloadRetry (retryDue): left registered,
// its slots would count missed for ls --missed and /metrics (its line is
// gone, so nothing fires or replays it) until the next start.
func (s *tasks) retireOrRetry(name string) {
	ctx := context.WithoutCancel(s.ctx)
	if s.stopping != nil {
		ctx = store.GiveUpWaitsWhen(ctx, s.stopping)
	}
	_, err := s.d.cfg.Store.Forget(ctx, name, s.d.cfg.Machine.Now(), false)
	if err == nil {
		delete(s.unretired, name)
		s.d.cfg.Log.Info("task retired: no longer in the crontabs", "event", "retire", "task", name)
		return
	}
	msg := fmt.Sprintf("task %s: cannot retire it in the ledger: %v", name, err)
	switch {
	case errors.Is(err, store.ErrNotFound): // forgotten with --purge meanwhile: nothing left to retire
		delete(s.unretired, name)
	case s.stopping != nil && s.stopping.Err() != nil: // stopping: the next start retires it (SQLite)
	default:
		if s.unretired == nil {
			s.unretired = map[string]bool{}
		}
		s.unretired[name] = true
		s.retryAt = time.Now().Add(reloadRetry)
		msg += fmt.Sprintf("; trying again in %s", catchup.FormatDuration(reloadRetry))
	}
	s.d.cfg.Log.Error(msg, "event", "error", "task", name)
}

// retryDue tries again, once due, the retirements the ledger refused.
func (s *tasks) retryDue() {
	if len(s.unretired) == 0 || time.Now().Before(s.retryAt) {
		return
	}
	for name := range s.unretired {
		if s.stopping != nil && s.stopping.Err() != nil {
			return // the next start retires them
		}
		s.retireOrRetry(name)
	}
}
