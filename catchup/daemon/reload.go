package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"reflect"
	"sync"
	"syscall"
	"time"

	"github.com/catchup/catchup/catchup"
)

// scheduled is a task's running loop.
type scheduled struct {
	task    Task
	cancel  context.CancelFunc
	done    chan struct{}
	from    time.Time // where the loop fires from (loop's from)
	through progress
}

// tasks runs one loop per task, and replaces them on a reload.
type tasks struct {
	d       *Daemon
	ctx     context.Context // the daemon's: fires and replays outlive a reload
	running map[string]*scheduled
	loops   sync.WaitGroup
	loaded  bool // the first set is done: later ones are reloads
	// stopping is done once a stop came: a retirement waiting for the
	// ledger then gives up (the next start retires the task again).
	stopping context.Context
	// unretired are the removed lines' tasks the ledger refused to retire:
	// tried again from retryAt (retire.go).
	unretired map[string]bool
	retryAt   time.Time
	// left counts the records of the slots a changed or removed line left
	// (left.go): a stop waits for them. gone is done once the daemon gives
	// up (its grace over): their alerts are cut then.
	left sync.WaitGroup
	gone context.Context
}

// set schedules ts, read at read: a new task starts, a changed one
// restarts, a removed one is retired (its loop ends; a fire of it in
// progress runs on; the ledger retires it, so that no scan replays it and
// no probe counts its slots missed). A task's loop fires its slots from
// the daemon's start for the first set; for a reload's, from read (a slot
// that came while the reload registered the task is fired, late), or from
// where the loop it replaces had come, when later: no slot is fired twice.
func (s *tasks) set(ts []Task, read time.Time) {
	keep := map[string]bool{}
	for _, t := range ts {
		keep[t.Def.Name] = true
	}
	if !s.loaded {
		// Before any loop starts: its scan's writes, waiting for a
		// ledger another process holds, would hold back the reads here
		// (and Run's loop, which acts on a stop, with them).
		s.retireGone(keep)
	}
	for _, t := range ts {
		from := read
		if !s.loaded {
			from = s.d.cfg.Rule.FiredAfter // the first: from the daemon's start
		}
		var after <-chan struct{}
		old := s.running[t.Def.Name]
		if old != nil {
			if sameTask(old.task, t) {
				old.task = t // its line may have moved: the registration says where
				s.d.setLoaded(t, false)
				continue
			}
			old.cancel()
			<-old.done
			after = old.through.idle() // the new loop waits for the old one's fires
			switch came := old.through.get(); {
			case came.IsZero():
				// It never began (it waited for the fires of the loop
				// before it): the new one goes on from where it would
				// have; from the read, no loop fired the slots between.
				from = old.from
			case came.After(from):
				from = came
			}
			s.d.cfg.Log.Info("task changed", "event", "reload", "task", t.Def.Name)
		} else if s.loaded {
			s.d.cfg.Log.Info("task added", "event", "reload", "task", t.Def.Name)
		}
		s.leaveChanged(t, old, after, from)
		lctx, cancel := context.WithCancel(s.ctx)
		sc := &scheduled{task: t, cancel: cancel, done: make(chan struct{}), from: from}
		sc.through.after = after
		if old != nil {
			sc.through.prev = &old.through // its skipped slots stay missed at once (progress.inherit)
		}
		s.running[t.Def.Name] = sc
		s.d.setLoaded(t, false)
		s.loops.Add(1)
		go func() { defer s.loops.Done(); defer close(sc.done); s.d.loop(s.ctx, lctx, t, from, &sc.through) }()
	}
	for name := range s.unretired {
		if keep[name] {
			delete(s.unretired, name) // its line is back: registered anew
		}
	}
	for name, sc := range s.running {
		if !keep[name] {
			sc.cancel()
			<-sc.done
			delete(s.running, name)
			s.d.setLoaded(sc.task, true)
			s.retire(name, &sc.task, sc.through.idle())
		}
	}
	s.loaded = true
}

// firesFrom is, for a reload that reads the crontabs at read, where each
// task's new loop may fire from at the earliest (set's from: read, or
// where a loop that never began would have; zero: no read time), for its
// registration (RegisterDaemonTask's firesFrom). Taken on Run's loop when
// the reload starts: a loop that begins meanwhile fires from later.
func (s *tasks) firesFrom(read time.Time) func(string) time.Time {
	early := map[string]time.Time{}
	for name, sc := range s.running {
		if sc.through.get().IsZero() && !sc.from.IsZero() && sc.from.Before(read) {
			early[name] = sc.from
		}
	}
	return func(name string) time.Time {
		if from, ok := early[name]; ok {
			return from
		}
		return read
	}
}

// Source is the registered source of the task of a line of a daemon's
// crontab: "daemon:PATH:LINE", " uid=N" when the daemon is not root's (a
// root scan does not run such a task: catchup.refusedAsRoot), and
// catchup.RedactedMark when its stored command is redacted.
func Source(path string, line, uid int, redacted bool) string {
	s := fmt.Sprintf("daemon:%s:%d", path, line)
	if uid != 0 {
		s += fmt.Sprintf(" uid=%d", uid)
	}
	if redacted {
		s += catchup.RedactedMark
	}
	return s
}

// sameTask compares what a task runs and when, not its registration times
// (when its schedule took effect among them: a reload that registered a
// change holds its own, finer than the ledger's that the next reload
// reads) nor where its line is (a line added above it moves it: its source,
// daemon:FILE:LINE, is the registration's, which the reload updated); its
// schedule by meaning (another spelling, 1-5 for MON-FRI, is the same
// task: its loop runs on), its zone by name.
func sameTask(a, b Task) bool {
	a.Def.RegisteredAt, a.Def.UpdatedAt, a.Def.SettledThrough = b.Def.RegisteredAt, b.Def.UpdatedAt, b.Def.SettledThrough
	a.Def.ScheduleSince = b.Def.ScheduleSince
	a.Def.Source = b.Def.Source
	a.Replaced, b.Replaced = catchup.Replaced{}, catchup.Replaced{}
	sameSchedule := a.Sched.SameAs(b.Sched) // Sched is Def.Schedule, parsed
	a.Def.Schedule, a.Sched, b.Sched = b.Def.Schedule, nil, nil
	return reflect.DeepEqual(a, b) && sameSchedule
}

// Stamp is what tells a changed crontab: size, modification time, what
// decides whether it is trusted (mode and owner: a reload refused for the
// file's mode is tried again once the mode is fixed), and the file itself
// (its inode, and a digest of its first stampBytes): a crontab replaced by
// another of the same size and time (renamed over it from a Nix store or
// an image, whose files' times are all the same, or rewritten with its
// time put back) read the same, and its new lines were never loaded.
// Taken before the crontabs are read (Config.Stamp), so that a write after
// it is seen.
func Stamp(paths []string) string {
	var s string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			uid, ino := -1, uint64(0)
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				uid, ino = int(st.Uid), st.Ino
			}
			sum := "-"
			if fi.Mode().IsRegular() {
				sum = digest(p)
			}
			s += fmt.Sprintf("%s %s %d %v %d %d %s\n", p, fi.ModTime(), fi.Size(), fi.Mode(), uid, ino, sum)
		} else {
			s += p + " gone\n"
		}
	}
	return s
}

// stampBytes bounds what Stamp reads of a crontab, every pollEvery.
const stampBytes = 1 << 20

// digest is a digest of the first stampBytes of the regular file at path
// ("-" when it cannot be read: the reload says why). Opened without
// blocking: a FIFO swapped in since its stat is not waited on.
func digest(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "-"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, stampBytes)); err != nil {
		return "-"
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// pollEvery is how often watch reads the crontabs' stamps; settlePolls
// how many polls in a row after a change must read the same stamp before
// it is reported (the file stayed still for that many polls' time).
const (
	pollEvery   = time.Second
	settlePolls = 2
)

// watch reports on changed when a crontab's stamp has changed from stamp
// (taken before the tasks running were read) and then stayed the same for
// settlePolls polls.
func watch(ctx context.Context, paths []string, stamp string, changed chan<- struct{}) {
	s := newSettler(stamp)
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if s.observe(Stamp(paths)) {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}
	}
}

// settler tells when a changed crontab has settled. A writer that rewrites
// a file in place (nano, cat >, cp, docker cp) leaves it empty or cut short
// between its writes: read then, the lines it has not written yet would be
// taken for lines removed, their tasks retired and their slots lost.
type settler struct {
	reported string // the stamp last reported, or read at start
	seen     string // the stamp the last poll read
	still    int    // polls since seen was first read
}

func newSettler(stamp string) *settler {
	return &settler{reported: stamp, seen: stamp, still: settlePolls}
}

// observe takes a poll's stamp; true when it is a change to report: it
// differs from the one last reported, and settlePolls polls in a row have
// read it since it was first read.
func (s *settler) observe(stamp string) bool {
	if stamp != s.seen {
		s.seen, s.still = stamp, 0
		return false
	}
	s.still++
	if s.still < settlePolls || stamp == s.reported {
		return false
	}
	s.reported = stamp
	return true
}
