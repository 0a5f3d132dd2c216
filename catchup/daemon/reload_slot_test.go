package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// clock is a test clock the daemon's goroutines and a reload's Load read
// and set at once.
type clock struct{ ns atomic.Int64 }

func (c *clock) set(t time.Time) { c.ns.Store(t.UnixNano()) }
func (c *clock) now() time.Time  { return time.Unix(0, c.ns.Load()).UTC() }

// TestSlotWhileReloadingIsFired: a slot that comes while a reload registers
// a task its crontab gained (after the reload read the crontab, before the
// task's loop began) is fired, late, as a slot that comes while the daemon
// starts is: the loop began at the next slot, leaving it to a rescan, so it
// was lost under --replay none or --rescan 0.
func TestSlotWhileReloadingIsFired(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "none", started) // its task's ledger; the reload adds another
	var c clock
	c.set(started)
	m := f.d.cfg.Machine
	m.Now = c.now
	load := func(_ context.Context, firesFrom func(string) time.Time) ([]Task, error) { // the crontab gained the line of task tock
		c.set(started.Add(50 * time.Second)) // registered at 10:01:20, after 10:01
		task := f.task
		task.Def.Name, task.Req.Task = "tock", "tock"
		var err error
		task.Def, task.Replaced, err = catchup.RegisterDaemonTask(context.Background(), f.st, m, task.Def, false, firesFrom(task.Def.Name))
		return []Task{task}, err
	}
	logs := &safeBuffer{b: &bytes.Buffer{}}
	d := New(Config{Store: f.st, Machine: m, Log: slog.New(slog.NewTextHandler(logs, nil)), Grace: time.Second,
		Rule: catchup.MissedRule{FiredAfter: started}, Load: load})
	stop, hup := make(chan os.Signal, 1), make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() { d.Run(stop, hup); close(done) }()
	c.set(started.Add(10 * time.Second)) // the reload reads the crontab at 10:00:40
	hup <- syscall.SIGHUP
	want := "2026-03-01T10:01:00Z schedule\n"
	deadline := time.Now().Add(30 * time.Second)
	for f.fires() != want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stop <- syscall.SIGTERM
	<-done
	if got := f.fires(); got != want || strings.Contains(logs.String(), "duplicate") {
		t.Errorf("the job ran for %q within 30s, want %q (the slot that came while the reload registered the task); log:\n%s", got, want, logs.String())
	}
}

// TestChangedTaskGoesOnWhereItsLoopWas: a task a reload changes restarts
// its loop where the old one had come, not from when the reload read the
// crontab: a slot the old loop fired meanwhile is not fired again (a
// duplicate-fire record), and the next one is the new loop's.
func TestChangedTaskGoesOnWhereItsLoopWas(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", started)
	var c clock
	c.set(started)
	m := f.d.cfg.Machine
	m.Now = c.now
	load := func(_ context.Context, firesFrom func(string) time.Time) ([]Task, error) {
		c.set(started.Add(50 * time.Second)) // 10:01 comes while the reload registers: the old loop fires it
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(f.fires(), "10:01:00Z schedule") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		task := f.task
		task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER changed" >> fires.log`}
		task.Def.Argv = task.Req.Argv
		var err error
		task.Def, task.Replaced, err = catchup.RegisterDaemonTask(context.Background(), f.st, m, task.Def, false, firesFrom(task.Def.Name))
		return []Task{task}, err
	}
	logs := &safeBuffer{b: &bytes.Buffer{}}
	d := New(Config{Store: f.st, Machine: m, Log: slog.New(slog.NewTextHandler(logs, nil)), Grace: time.Second,
		Rule: catchup.MissedRule{FiredAfter: started}, Load: load, Tasks: []Task{f.task},
		Rate: 600}) // a loop reads the test clock again every 50ms (real) at most
	stop, hup := make(chan os.Signal, 1), make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() { d.Run(stop, hup); close(done) }()
	c.set(started.Add(10 * time.Second)) // the reload reads the crontab at 10:00:40
	hup <- syscall.SIGHUP
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logs.String(), "crontabs reloaded") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	c.set(started.Add(100 * time.Second)) // 10:02:10
	want := "2026-03-01T10:01:00Z schedule\n2026-03-01T10:02:00Z schedule changed\n"
	for f.fires() != want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stop <- syscall.SIGTERM
	<-done
	if got := f.fires(); got != want {
		t.Errorf("the job ran for\n%swant, within 30s,\n%slog:\n%s", got, want, logs.String())
	}
	runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Errorf("%d runs recorded, want the 2 fires (no duplicate-fire record): %+v", len(runs), runs)
	}
}
