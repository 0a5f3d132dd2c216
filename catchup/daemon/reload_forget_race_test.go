package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// forgetOnRead is a ledger on which `catchup forget` of task name commits
// just after its first read (Task): after a reload read the line's task,
// before it registers the line.
type forgetOnRead struct {
	store.Store
	t       *testing.T
	m       catchup.Machine
	name    string
	retired bool
}

func (f *forgetOnRead) Task(ctx context.Context, name string) (store.Task, error) {
	t, err := f.Store.Task(ctx, name)
	if !f.retired && name == f.name && err == nil {
		f.retired = true
		if _, err := catchup.Forget(ctx, f.Store, f.m, catchup.ForgetRequest{Task: name}); err != nil {
			f.t.Errorf("forget: %v", err) // on the daemon's goroutine: no Fatal
		}
	}
	return t, err
}

// TestForgetDuringAReloadLeavesItRetired: a reload that changes a line's
// schedule (* to */5) while a `catchup forget` of its task commits after
// the reload read the task, before it registers the line: the task stays
// as forget left it (retired, its schedule), neither the registration nor
// the old line's loop, once its fires end, records the old schedule's
// slots expired (schedule-changed) beside forget's records, and the
// daemon's log says so once (a warning). Before, the reload revived the
// task with the new schedule and recorded 10:02 expired (schedule-changed).
// The forget records 10:02 (lock-busy) expired itself, or, its clock at
// 10:01:30 (another host's, behind), leaves it to the old loop, whose
// records the refused registration drops (leaveChanged, Replaced.Refused):
// with that check gone, the old loop's records, refused for the retired
// task, warned a second time.
func TestForgetDuringAReloadLeavesItRetired(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		forgetAt time.Duration // after the daemon's start, 10:00:30; 0: the daemon's clock
		want     []string
	}{
		"forget records 10:02": {want: []string{"10:00 succeeded ", "10:01 succeeded ", "10:02 expired " + store.ReasonRetired, "10:02 skipped "}},
		"10:02 left to the old loop": {forgetAt: time.Minute,
			want: []string{"10:00 succeeded ", "10:01 succeeded ", "10:02 skipped "}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each on its own fixture
			var racing *forgetOnRead
			var reloaded []Task
			lf := newLeftFixture(t, func(lf *leftFixture) []Task {
				if reloaded != nil {
					return reloaded
				}
				lf.c.set(lf.started.Add(2 * time.Minute)) // 10:02:30
				m := lf.m
				log := slog.New(slog.NewTextHandler(lf.logs, nil))
				m.Notice = func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...), "event", "warning") } // as cmd's
				racing = &forgetOnRead{Store: lf.st, t: t, m: lf.m, name: "tick"}
				if tc.forgetAt != 0 {
					at := lf.started.Add(tc.forgetAt)
					racing.m.Now = func() time.Time { return at }
				}
				task := lf.task
				task.Def.Schedule = "*/5 * * * *"
				var err error
				if task.Sched, err = schedule.Parse(task.Def.Schedule, time.UTC); err != nil {
					t.Error(err)
				}
				if task.Def, task.Replaced, err = catchup.RegisterDaemonTask(context.Background(), racing, m, task.Def, false, lf.from("tick")); err != nil {
					t.Errorf("the reload's registration: %v", err)
				}
				reloaded = []Task{task}
				return reloaded
			})
			lf.firstTwoFires()
			lf.hup <- syscall.SIGHUP
			lf.waitFor("the reload", func() bool { return strings.Count(lf.logs.String(), "crontabs reloaded") == 1 })
			lf.touch("go")
			lf.touch("alert-go")
			lf.waitFor("10:01's outcome", func() bool { return strings.Contains(strings.Join(lf.records(), "|"), "10:01 succeeded") })
			lf.stop <- syscall.SIGTERM // waits for the old line's records (tasks.left)
			<-lf.done

			if racing == nil || !racing.retired {
				t.Fatalf("the forget never came: the reload did not read the task; log:\n%s", lf.logs.String())
			}
			task, err := lf.st.Task(context.Background(), "tick")
			if err != nil {
				t.Fatal(err)
			}
			if task.RetiredAt.IsZero() || task.Schedule != "* * * * *" {
				t.Errorf("task tick: %q, retired %v; want \"* * * * *\" retired, as forget left it; log:\n%s",
					task.Schedule, task.RetiredAt, lf.logs.String())
			}
			if got := lf.records(); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("records %q, want %q (none of the old schedule's: schedule-changed); log:\n%s", got, tc.want, lf.logs.String())
			}
			if n := strings.Count(lf.logs.String(), "was retired since this daemon read it (catchup forget, or its line gone)"); n != 1 {
				t.Errorf("the log says the task was retired since the daemon read it %d times; want once:\n%s", n, lf.logs.String())
			}
		})
	}
}

// TestForgetAfterAReloadBeforeTheOldLoopEnds: a reload registers a
// line's changed schedule (* to */5) at 10:01:30, while the old loop's
// 10:01 job runs on, and 10:02 comes before the reload ends (its fire
// meets that job's lock): 10:02 is the old loop's to record expired
// (schedule-changed) once that job ends. A `catchup forget` of the task
// commits before it does: the retired task gets no such record, and the
// daemon's log warns once that it was retired since it read it, with no
// error (leave's store.ErrRetired branch; without it the log said the
// records failed, as for a ledger fault).
func TestForgetAfterAReloadBeforeTheOldLoopEnds(t *testing.T) {
	t.Parallel()
	var reloaded []Task
	lf := newLeftFixture(t, func(lf *leftFixture) []Task {
		if reloaded != nil {
			return reloaded
		}
		lf.c.set(lf.started.Add(2 * time.Minute)) // 10:02:30: the reload's end
		m := lf.m
		at := lf.started.Add(time.Minute) // 10:01:30: the registration's
		m.Now = func() time.Time { return at }
		task := lf.task
		task.Def.Schedule = "*/5 * * * *"
		var err error
		if task.Sched, err = schedule.Parse(task.Def.Schedule, time.UTC); err != nil {
			t.Error(err)
		}
		if task.Def, task.Replaced, err = catchup.RegisterDaemonTask(context.Background(), lf.st, m, task.Def, false, lf.from("tick")); err != nil {
			t.Errorf("the reload's registration: %v", err)
		}
		reloaded = []Task{task}
		return reloaded
	})
	lf.firstTwoFires()
	lf.hup <- syscall.SIGHUP
	lf.waitFor("the reload", func() bool { return strings.Count(lf.logs.String(), "crontabs reloaded") == 1 })
	if reg, err := lf.st.Task(context.Background(), "tick"); err != nil || reg.Schedule != "*/5 * * * *" || !reg.RetiredAt.IsZero() {
		t.Fatalf("after the reload, task tick %q retired %v (%v); want \"*/5 * * * *\" registered, live", reg.Schedule, reg.RetiredAt, err)
	}
	if _, err := catchup.Forget(context.Background(), lf.st, lf.m, catchup.ForgetRequest{Task: "tick"}); err != nil {
		t.Fatalf("forget: %v", err)
	}
	lf.touch("go") // the old loop's 10:01 job ends: its slots are recorded, refused
	lf.touch("alert-go")
	lf.waitFor("10:01's outcome", func() bool { return strings.Contains(strings.Join(lf.records(), "|"), "10:01 succeeded") })
	lf.stop <- syscall.SIGTERM // waits for the old line's records (tasks.left)
	<-lf.done

	want := []string{"10:00 succeeded ", "10:01 succeeded ", "10:02 skipped "}
	if got := lf.records(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("records %q, want %q (none of the old schedule's: schedule-changed); log:\n%s", got, want, lf.logs.String())
	}
	if n := strings.Count(lf.logs.String(), "was retired since this daemon read it (catchup forget, or its line gone)"); n != 1 {
		t.Errorf("the log says the task was retired since the daemon read it %d times; want once:\n%s", n, lf.logs.String())
	}
	if strings.Contains(lf.logs.String(), "level=ERROR") {
		t.Errorf("the log has an error; want only the warning:\n%s", lf.logs.String())
	}
}
