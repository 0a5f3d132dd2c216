package daemon

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sync"
	"time"
)

// scheduled is a task's running loop.
type scheduled struct {
	task   Task
	cancel context.CancelFunc
	done   chan struct{}
}

// tasks runs one loop per task, and replaces them on a reload.
type tasks struct {
	d       *Daemon
	ctx     context.Context // the daemon's: fires and replays outlive a reload
	running map[string]*scheduled
	loops   sync.WaitGroup
	loaded  bool // the first set is done: later ones are reloads
}

// set schedules ts: a new task starts, a changed one restarts, a removed
// one is retired (its loop ends; a fire of it in progress runs on; the
// ledger retires it, so that no scan replays it and no probe counts its
// slots missed).
func (s *tasks) set(ts []Task) {
	keep := map[string]bool{}
	for _, t := range ts {
		keep[t.Def.Name] = true
		if old := s.running[t.Def.Name]; old != nil {
			if sameTask(old.task, t) {
				continue
			}
			old.cancel()
			<-old.done
			s.d.cfg.Log.Info("task changed", "event", "reload", "task", t.Def.Name)
		} else if s.loaded {
			s.d.cfg.Log.Info("task added", "event", "reload", "task", t.Def.Name)
		}
		lctx, cancel := context.WithCancel(s.ctx)
		sc := &scheduled{task: t, cancel: cancel, done: make(chan struct{})}
		s.running[t.Def.Name] = sc
		s.loops.Add(1)
		go func() { defer s.loops.Done(); defer close(sc.done); s.d.loop(s.ctx, lctx, t) }()
	}
	for name, sc := range s.running {
		if !keep[name] {
			sc.cancel()
			<-sc.done
			delete(s.running, name)
			if _, err := s.d.cfg.Store.Forget(context.WithoutCancel(s.ctx), name, s.d.cfg.Machine.Now(), false); err != nil {
				s.d.cfg.Log.Error("task "+name+": cannot retire it in the ledger: "+err.Error(), "event", "error", "task", name)
			}
			s.d.cfg.Log.Info("task retired: no longer in the crontabs", "event", "retire", "task", name)
		}
	}
	s.loaded = true
}

// sameTask compares what a task runs and when, not its registration times.
func sameTask(a, b Task) bool {
	a.Def.RegisteredAt, a.Def.UpdatedAt, a.Def.SettledThrough = b.Def.RegisteredAt, b.Def.UpdatedAt, b.Def.SettledThrough
	a.Sched, b.Sched = nil, nil
	return reflect.DeepEqual(a, b) && a.Def.Schedule == b.Def.Schedule
}

// fileStamps is what tells a changed crontab: size and modification time.
func fileStamps(paths []string) string {
	var s string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			s += fmt.Sprintf("%s %s %d\n", p, fi.ModTime(), fi.Size())
		} else {
			s += p + " gone\n"
		}
	}
	return s
}

// watch reports on changed when a crontab's stamp changes (polled every second).
func watch(ctx context.Context, paths []string, changed chan<- struct{}) {
	last := fileStamps(paths)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if now := fileStamps(paths); now != last {
				last = now
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}
	}
}
