package daemon

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// TestDaemonFireStandsForItsSlot: a daemon fire that starts late (it waited for a
// place under --concurrency, or for its task's replays) stands for the slot
// its timer was set for, not for the latest slot when it starts: resolved
// then, a fire for 10:00 starting at 10:02:30 ran as 10:02, so 10:00 was
// left to a replay (never run with --replay none) and 10:02's own fire was
// a duplicate.
func TestDaemonFireStandsForItsSlot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "catchup.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	now := slot.Add(-time.Minute)
	m := catchup.Machine{Now: func() time.Time { return now }, Host: "h", PID: os.Getpid(), UID: os.Geteuid(),
		LockDir: filepath.Join(dir, "locks"), DB: filepath.Join(dir, "catchup.db"), Zone: "UTC",
		Stdout: io.Discard, Stderr: io.Discard, Environ: []string{"PATH=" + os.Getenv("PATH")}}
	sched, err := schedule.Parse("* * * * *", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log`}
	def := store.Task{Name: "tick", Schedule: "* * * * *", TZ: "UTC", Replay: "none", Argv: argv, Dir: dir, Source: "daemon:test:1"}
	if def, err = catchup.RegisterDaemonTask(ctx, st, m, def); err != nil {
		t.Fatal(err)
	}
	task := Task{Def: def, Sched: sched, Req: catchup.RunRequest{Task: "tick", Argv: argv, Dir: dir}}
	var logs bytes.Buffer
	d := New(Config{Store: st, Machine: m, Log: slog.New(slog.NewTextHandler(&logs, nil))})

	now = slot.Add(2*time.Minute + 30*time.Second) // the 10:00 fire starts late
	d.fire(ctx, task, slot)
	d.fire(ctx, task, slot.Add(2*time.Minute)) // then 10:02's own, on time
	// Retired meanwhile (catchup forget, or a replica with a newer crontab):
	// the next fire still stands for its slot, and registers the task anew.
	if _, err := st.Forget(ctx, "tick", now, false); err != nil {
		t.Fatal(err)
	}
	now = slot.Add(3 * time.Minute)
	d.fire(ctx, task, now)
	b, err := os.ReadFile(filepath.Join(dir, "fires.log"))
	if err != nil {
		t.Fatalf("no job ran: %v; log:\n%s", err, logs.String())
	}
	want := "2026-03-01T10:00:00Z schedule\n2026-03-01T10:02:00Z schedule\n2026-03-01T10:03:00Z schedule\n"
	if string(b) != want {
		t.Errorf("the job ran for\n%swant\n%slog:\n%s", b, want, logs.String())
	}
	if strings.Contains(logs.String(), "duplicate") {
		t.Errorf("a fire was taken for a duplicate:\n%s", logs.String())
	}
	if got, err := st.Task(ctx, "tick"); err != nil || !got.RetiredAt.IsZero() {
		t.Errorf("after its fire, the task is %+v, %v; want it registered anew", got, err)
	}
}

// TestDaemonFireOfATaskRetiredMeanwhile: a fire that waited to start while
// a reload removed its line (the task retired after its slot came) does
// not run, and does not register the task anew: the removal wins.
func TestDaemonFireOfATaskRetiredMeanwhile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "catchup.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	now := slot.Add(-time.Minute)
	m := catchup.Machine{Now: func() time.Time { return now }, Host: "h", PID: os.Getpid(), UID: os.Geteuid(),
		LockDir: filepath.Join(dir, "locks"), DB: filepath.Join(dir, "catchup.db"), Zone: "UTC",
		Stdout: io.Discard, Stderr: io.Discard, Environ: []string{"PATH=" + os.Getenv("PATH")}}
	sched, err := schedule.Parse("* * * * *", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT" >> fires.log`}
	def := store.Task{Name: "gone", Schedule: "* * * * *", TZ: "UTC", Replay: "all", Argv: argv, Dir: dir, Source: "daemon:test:1"}
	if def, err = catchup.RegisterDaemonTask(ctx, st, m, def); err != nil {
		t.Fatal(err)
	}
	task := Task{Def: def, Sched: sched, Req: catchup.RunRequest{Task: "gone", Argv: argv, Dir: dir}}
	d := New(Config{Store: st, Machine: m, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	now = slot.Add(2 * time.Second)
	if _, err := st.Forget(ctx, "gone", now, false); err != nil { // the reload, while the fire waited
		t.Fatal(err)
	}
	now = slot.Add(3 * time.Second)
	d.fire(ctx, task, slot)
	if _, err := os.Stat(filepath.Join(dir, "fires.log")); err == nil {
		t.Error("the fire of a task retired after its slot came ran")
	}
	if got, err := st.Task(ctx, "gone"); err != nil || got.RetiredAt.IsZero() {
		t.Errorf("the task is %+v, %v; want it still retired", got, err)
	}
}
