package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// leftFixture runs a daemon with task tick (* * * * *, started 10:00:30,
// 10:00 missed for its start's scan) whose job for any later slot runs
// until the file go exists, and whose --notify-cmd (written with a secret,
// which the ledger keeps masked) writes the expired slots it is told of to
// alerts and where it runs to alert-dir, then runs until alert-go exists
// and writes alerted.
type leftFixture struct {
	*fireFixture
	t       *testing.T
	c       clock
	m       catchup.Machine
	started time.Time
	logs    *safeBuffer
	stop    chan os.Signal
	hup     chan os.Signal
	done    chan struct{}
	// from is the reload's RegisterDaemonTask firesFrom (Load's); nil at
	// the start: the daemon's start.
	from func(string) time.Time
}

func newLeftFixture(t *testing.T, load func(*leftFixture) []Task) *leftFixture {
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	lf := &leftFixture{fireFixture: newFireFixture(t, "tick", "all", started.Add(-time.Minute)), t: t, started: started,
		logs: &safeBuffer{b: &bytes.Buffer{}}, stop: make(chan os.Signal, 1), hup: make(chan os.Signal, 1), done: make(chan struct{})}
	lf.c.set(started)
	lf.m = lf.d.cfg.Machine
	lf.m.Now = lf.c.now
	task := lf.task
	task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT" >> fires.log; [ "$CATCHUP_SLOT" = 2026-03-01T10:00:00Z ] || ` + waitFile("go")}
	task.Def.Argv = task.Req.Argv
	task.Req.NotifyCmd = `[ -z "$CATCHUP_EXPIRED_SLOTS" ] && exit 0; echo "$CATCHUP_STATUS $CATCHUP_EXPIRED_SLOTS" >> ` + lf.file("alerts") +
		`; pwd >> ` + lf.file("alert-dir") + `; : --password=hunter2; ` + waitFile(lf.file("alert-go")) + `; echo done >> ` + lf.file("alerted")
	task.Def.NotifyCmd = task.Req.NotifyCmd
	lf.task = lf.reg(task)
	d := New(Config{Store: lf.st, Machine: lf.m, Log: slog.New(slog.NewTextHandler(lf.logs, nil)), Grace: time.Second,
		Rule: catchup.MissedRule{FiredAfter: started}, Tasks: []Task{lf.task},
		Load: func(_ context.Context, from func(string) time.Time) ([]Task, error) {
			lf.from = from
			return load(lf), nil
		},
		Rescan: time.Hour, Rate: 600}) // a loop reads the test clock again every 50ms (real) at most
	go func() { d.Run(lf.stop, lf.hup); close(lf.done) }()
	t.Cleanup(func() {
		os.WriteFile(lf.file("go"), nil, 0o644)
		os.WriteFile(lf.file("alert-go"), nil, 0o644)
		select {
		case lf.stop <- syscall.SIGTERM:
		default:
		}
		<-lf.done
	})
	return lf
}

func (lf *leftFixture) file(name string) string { return filepath.Join(lf.dir, name) }

// waitFile is a shell loop that waits for file to exist, 60s at most: a
// test that fails before it creates the file leaves no process behind.
func waitFile(file string) string {
	return `{ i=0; while [ ! -e ` + file + ` ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i+1)); done; }`
}

// reg registers task as a (re)read of its line does, Replaced set.
func (lf *leftFixture) reg(task Task) Task {
	from := lf.started
	if lf.from != nil {
		from = lf.from(task.Def.Name)
	}
	var err error
	if task.Def, task.Replaced, err = catchup.RegisterDaemonTask(context.Background(), lf.st, lf.m, task.Def, false, from); err != nil {
		lf.t.Fatal(err)
	}
	return task
}

// every is task tick with the schedule expr, registered.
func (lf *leftFixture) every(expr string) Task {
	task := lf.task
	task.Def.Schedule = expr
	var err error
	if task.Sched, err = schedule.Parse(expr, time.UTC); err != nil {
		lf.t.Fatal(err)
	}
	return lf.reg(task)
}

func (lf *leftFixture) waitFor(what string, ok func() bool) {
	lf.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			lf.t.Fatalf("%s: not within 30s; records %q; log:\n%s", what, lf.records(), lf.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (lf *leftFixture) touch(name string) {
	if err := os.WriteFile(lf.file(name), nil, 0o644); err != nil {
		lf.t.Fatal(err)
	}
}

// firstTwoFires lets the start's scan end (a fire beside it waits for
// it), has 10:01's job run on, and 10:02's fire meet its lock.
func (lf *leftFixture) firstTwoFires() {
	lf.waitFor("the start's scan", func() bool { return strings.Contains(lf.logs.String(), "event=scan task=tick") })
	lf.c.set(lf.started.Add(30 * time.Second)) // 10:01: its job runs until go
	lf.waitFor("10:01's job started", func() bool { return strings.Contains(lf.fires(), "10:01:00Z") })
	lf.c.set(lf.started.Add(90 * time.Second)) // 10:02: its fire meets the lock
	lf.waitFor("10:02's fire not run", func() bool {
		return strings.Contains(lf.logs.String(), "event=skip task=tick slot=2026-03-01T10:02:00Z")
	})
}

// records are the ledger's runs of tick, "15:04 status reason", sorted
// (by slot; the expiries of a reload and the new loop's fires may commit
// in either order).
func (lf *leftFixture) records() []string {
	runs, err := lf.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100})
	if err != nil {
		lf.t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Slot.UTC().Format("15:04")+" "+string(r.Status)+" "+r.Reason)
	}
	slices.Sort(got)
	return got
}

// TestReloadRecordsWhatTheOldLineLeft: a reload that changes a line's
// schedule, or removes the line, leaves the slots the old line missed
// (here 10:02, whose fire met the lock of 10:01's job, still running)
// with no fire and no replay to come. They are recorded expired, with the
// reason, and the line's --notify-cmd as written alerts for them: before,
// they vanished from every reader (the new registration's watermark passed
// them), logged as a change only. They are recorded once the old line's
// fires and replays have ended, not beside them (a slot would get an
// expired record and a run), and the alert runs off the reload's path: a
// reload while it runs, by a real SIGHUP, neither waits for it nor kills
// it (the alert got the daemon's SIGHUP, exit 129). The alert runs where
// the line's job runs, the line's home: before, a removed line's ran in
// the daemon's working directory (its command, as written, was taken for
// one given to the daemon).
func TestReloadRecordsWhatTheOldLineLeft(t *testing.T) {
	// Serial: it sends SIGHUP to this process, with a handler of its own.
	cases := map[string]struct {
		change func(lf *leftFixture) []Task
		code   string
	}{
		"schedule changed": {code: store.ReasonScheduleChanged, change: func(lf *leftFixture) []Task { return []Task{lf.every("*/5 * * * *")} }},
		"line removed":     {code: store.ReasonRetired, change: func(*leftFixture) []Task { return nil }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var reloaded []Task
			lf := newLeftFixture(t, func(lf *leftFixture) []Task {
				if reloaded == nil {
					lf.c.set(lf.started.Add(2 * time.Minute)) // 10:02:30
					reloaded = tc.change(lf)
				}
				return reloaded
			})
			lf.firstTwoFires()
			lf.hup <- syscall.SIGHUP
			lf.waitFor("the reload", func() bool { return strings.Count(lf.logs.String(), "crontabs reloaded") == 1 })
			lf.touch("go")
			// 10:01's job ends before the stop below: stopped running, its
			// slot would be interrupted, left, and alerted too (seen at load).
			lf.waitFor("10:01's job to end", func() bool {
				return strings.Contains(lf.logs.String(), "event=done task=tick slot=2026-03-01T10:01:00Z")
			})
			lf.waitFor("the alert", func() bool { b, _ := os.ReadFile(lf.file("alerts")); return len(b) > 0 })
			signal.Notify(lf.hup, syscall.SIGHUP) // as cmd turns the signal into hup
			defer signal.Stop(lf.hup)
			syscall.Kill(os.Getpid(), syscall.SIGHUP)
			lf.waitFor("a reload while the alert runs", func() bool { return strings.Count(lf.logs.String(), "crontabs reloaded") == 2 })
			lf.touch("alert-go")
			lf.waitFor("the alert's end", func() bool { b, _ := os.ReadFile(lf.file("alerted")); return len(b) > 0 })
			lf.stop <- syscall.SIGTERM
			<-lf.done

			if b, _ := os.ReadFile(lf.file("alerts")); string(b) != "missed 2026-03-01T10:02:00Z\n" {
				t.Errorf("the alert wrote %q, want %q; log:\n%s", b, "missed 2026-03-01T10:02:00Z\n", lf.logs.String())
			}
			want := []string{"10:00 succeeded ", "10:01 succeeded ", "10:02 expired " + tc.code, "10:02 skipped "}
			if got := lf.records(); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("records %q, want %q (10:02's fire skipped, then its slot expired, once); log:\n%s", got, want, lf.logs.String())
			}
			if b, _ := os.ReadFile(lf.file("alert-dir")); string(b) != lf.dir+"\n" {
				t.Errorf("the alert ran in %q, want the line's home %q", b, lf.dir+"\n")
			}
			if !strings.Contains(lf.logs.String(), "1 slot missed") {
				t.Errorf("the log does not say what was recorded expired:\n%s", lf.logs.String())
			}
		})
	}
}

// TestChangedBackBeforeTheNewLoopBegan: a line changed (* to */2) while
// its old loop's job runs, and changed back before the */2 loop began
// (it waits for that job): the new loop fires the slots from where the */2
// one would have begun, late. A */2 slot of that gap (10:04) is the new
// loop's to fire: it was recorded expired as left by */2, then fired, and
// alerted as missed.
func TestChangedBackBeforeTheNewLoopBegan(t *testing.T) {
	t.Parallel()
	reloads := 0
	lf := newLeftFixture(t, func(lf *leftFixture) []Task {
		reloads++
		if reloads == 1 {
			lf.c.set(lf.started.Add(2 * time.Minute)) // 10:02:30
			return []Task{lf.every("*/2 * * * *")}
		}
		lf.c.set(lf.started.Add(4 * time.Minute)) // 10:04:30
		return []Task{lf.every("* * * * *")}
	})
	lf.firstTwoFires()
	lf.hup <- syscall.SIGHUP
	lf.waitFor("the first reload", func() bool { return strings.Count(lf.logs.String(), "crontabs reloaded") == 1 })
	lf.hup <- syscall.SIGHUP
	lf.waitFor("the second reload", func() bool { return strings.Count(lf.logs.String(), "crontabs reloaded") == 2 })
	lf.touch("alert-go")
	lf.touch("go")
	lf.waitFor("10:03 and 10:04 fired late", func() bool { return strings.Contains(lf.fires(), "10:04:00Z") })
	lf.waitFor("the alert", func() bool { b, _ := os.ReadFile(lf.file("alerted")); return len(b) > 0 })
	lf.waitFor("10:04's outcome", func() bool { return strings.Contains(strings.Join(lf.records(), "|"), "10:04 succeeded") })
	lf.stop <- syscall.SIGTERM
	<-lf.done

	want := []string{"10:00 succeeded ", "10:01 succeeded ", "10:02 expired " + store.ReasonScheduleChanged, "10:02 skipped ",
		"10:03 succeeded ", "10:04 succeeded "}
	if got := lf.records(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("records %q, want %q; log:\n%s", got, want, lf.logs.String())
	}
	if b, _ := os.ReadFile(lf.file("alerts")); string(b) != "missed 2026-03-01T10:02:00Z\n" {
		t.Errorf("the alerts wrote %q, want only 10:02's; log:\n%s", b, lf.logs.String())
	}
}
