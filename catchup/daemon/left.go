package daemon

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// leaveChanged logs and alerts, for task t whose line's schedule or zone
// changed, the slots its registration recorded expired (Task.Replaced),
// and records, for the loop a reload restarts (old: the loop it replaces;
// nil at the daemon's start or for a line new to it), those its replaced
// registration missed after that, once after is closed (the old loop's
// fires and replays have ended; nil: at once): those before now, when the
// old loop stops, but the slots the new line takes (its loop fires the new
// schedule's slots after from; its scans replay those after the
// registration's change). A line whose schedule the ledger already held
// (another replica registered it first, or a reload the ledger refused
// halfway) leaves the slots of the schedule its old loop ran.
func (s *tasks) leaveChanged(t Task, old *scheduled, after <-chan struct{}, from time.Time) {
	if t.Replaced.Said != "" {
		s.said(t.Replaced.Task.Name, t.Replaced.Said, func(ctx context.Context) {
			t.Replaced.Alert(ctx, s.d.machine(t, nil), t.Req.NotifyCmd)
		})
	}
	if t.Replaced.Refused() {
		return // retired or purged since the reload read it: forget recorded what it left (RegisterDaemonTask said so)
	}
	prev := t.Replaced.Task
	if prev.Name == "" && old != nil && !sameSchedule(old.task, t) {
		prev = old.task.Def
	}
	if prev.Name == "" {
		return
	}
	taken := from
	if since := t.Def.ScheduleSince; !since.IsZero() && (taken.IsZero() || since.Before(taken)) {
		taken = since
	}
	lb := catchup.LeftBehind{Old: prev, Expr: t.Def.Schedule, TZ: t.Def.TZ, Cut: s.d.cfg.Machine.Now(), Taken: taken,
		Notify: t.Req.NotifyCmd}
	s.leave(t, lb, after)
}

// leaveRetired records the slots that task name (t: its line's, when this
// daemon runs it; nil for a line removed while it was stopped) missed
// until its retirement now, once after is closed; reg is its registration
// read just before it was retired.
func (s *tasks) leaveRetired(name string, t *Task, reg store.Task, after <-chan struct{}, now time.Time) {
	if !reg.RetiredAt.IsZero() {
		return // retired before: what it missed until then was recorded then
	}
	line := Task{Def: reg}
	if t != nil {
		line = *t
	}
	s.leave(line, catchup.LeftBehind{Old: reg, Path: sourcePath(reg.Source), Cut: now, Notify: line.Req.NotifyCmd}, after)
}

// leave records expired, in a goroutine of its own once after is closed,
// the slots lb's registration left missed, logs how many, and runs their
// alert (the line's --notify-cmd as written, else the ledger's): a reload,
// /healthz and the loops go on meanwhile, however long the alert takes,
// and a SIGHUP is never the alert's (Machine.AlertSignals). A stop waits
// for the records; an alert running then gets the stop signal, as the
// daemon's other alerts do, and is cut once the daemon gives up.
func (s *tasks) leave(t Task, lb catchup.LeftBehind, after <-chan struct{}) {
	s.left.Add(1)
	go func() {
		defer s.left.Done()
		if after != nil {
			<-after
		}
		ctx, cancel := context.WithCancel(context.WithoutCancel(s.ctx))
		defer cancel()
		name := lb.Old.Name
		said, alert, err := catchup.RecordLeftBehind(ctx, s.d.cfg.Store, s.d.machine(t, nil), lb)
		if lb.Expr != "" && errors.Is(err, store.ErrRetired) {
			// A changed line's task retired since the reload registered
			// the change: forget recorded what it missed (reason retired).
			s.d.cfg.Log.Warn("task "+name+" was retired since this daemon read it (catchup forget, or its line gone): "+
				"none of its old schedule's slots recorded", "event", "warning", "task", name)
			return
		}
		if err != nil {
			s.d.cfg.Log.Error("task "+name+": cannot record expired the slots its old line missed: "+err.Error()+
				" (catchup ls --missed does not show them; catchup backfill --task "+name+" runs a past range)", "event", "error", "task", name)
			return
		}
		s.sayLeft(ctx, cancel, name, said, func(context.Context) { alert() })
	}()
}

// said logs, and alerts in a goroutine of its own, the slots of task
// name that were recorded expired (said: what was, "" when none), as leave
// does for those it records.
func (s *tasks) said(name, said string, alert func(context.Context)) {
	s.left.Add(1)
	go func() {
		defer s.left.Done()
		ctx, cancel := context.WithCancel(context.WithoutCancel(s.ctx))
		defer cancel()
		s.sayLeft(ctx, cancel, name, said, alert)
	}()
}

// sayLeft logs what was recorded expired of task name's slots (said; ""
// when none: nothing) and runs their alert, cut (cancel) once the daemon
// gives up.
func (s *tasks) sayLeft(ctx context.Context, cancel context.CancelFunc, name, said string, alert func(context.Context)) {
	if said == "" {
		return
	}
	s.d.cfg.Log.Warn("task "+name+": "+said+": no replay comes for them (catchup backfill --task "+name+" --only missing runs them)",
		"event", "expired", "task", name)
	if s.gone != nil {
		defer context.AfterFunc(s.gone, cancel)()
	}
	alert(ctx)
}

// sameSchedule reports whether a and b fire at the same slots: the same
// schedule, however written, in the same zone.
func sameSchedule(a, b Task) bool {
	return a.Sched.SameAs(b.Sched) && schedule.SameZone(a.Def.TZ, b.Def.TZ)
}

// sourcePath is the crontab a daemon line's registered source names
// (Source: daemon:PATH:LINE, and what follows the line's number).
func sourcePath(source string) string {
	p := strings.TrimPrefix(source, "daemon:")
	if i := strings.LastIndex(p, ":"); i >= 0 {
		p = p[:i]
	}
	return p
}
