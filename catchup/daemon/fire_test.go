package daemon

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// fireFixture is a daemon over a real SQLite ledger with one task, fired
// every minute (UTC), whose job appends its $CATCHUP_SLOT and
// $CATCHUP_TRIGGER to fires.log in dir; the test sets the clock in *now.
type fireFixture struct {
	st   *sqlite.Ledger
	d    *Daemon
	task Task
	dir  string
	now  *time.Time
	logs safeBuffer // the daemon's goroutines log while a test reads it
}

func newFireFixture(t *testing.T, name, replay string, now time.Time) *fireFixture {
	t.Helper()
	f := &fireFixture{dir: t.TempDir(), now: &now, logs: safeBuffer{b: &bytes.Buffer{}}}
	st, err := sqlite.Open(t.Context(), filepath.Join(f.dir, "catchup.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f.st = st
	m := catchup.Machine{Now: func() time.Time { return *f.now }, Host: "h", PID: os.Getpid(), UID: os.Geteuid(),
		LockDir: filepath.Join(f.dir, "locks"), DB: filepath.Join(f.dir, "catchup.db"), Zone: "UTC",
		Stdout: io.Discard, Stderr: io.Discard, Environ: []string{"PATH=" + os.Getenv("PATH")}}
	sched, err := schedule.Parse("* * * * *", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log`}
	def := store.Task{Name: name, Schedule: "* * * * *", TZ: "UTC", Replay: replay, Argv: argv, Dir: f.dir, Source: "daemon:test:1"}
	if def, _, err = catchup.RegisterDaemonTask(t.Context(), st, m, def, false, time.Time{}); err != nil {
		t.Fatal(err)
	}
	f.task = Task{Def: def, Sched: sched, Req: catchup.RunRequest{Task: name, Argv: argv, Dir: f.dir}}
	f.d = New(Config{Store: st, Machine: m, Log: slog.New(slog.NewTextHandler(&f.logs, nil))})
	return f
}

// fires is what the job wrote, "" when it never ran.
func (f *fireFixture) fires() string {
	b, _ := os.ReadFile(filepath.Join(f.dir, "fires.log"))
	return string(b)
}

// TestDaemonFireStandsForItsSlot: a daemon fire that starts late (it waited for a
// place under --concurrency, or for its task's replays) stands for the slot
// its timer was set for, not for the latest slot when it starts: resolved
// then, a fire for 10:00 starting at 10:02:30 ran as 10:02, so 10:00 was
// left to a replay (never run with --replay none) and 10:02's own fire was
// a duplicate.
func TestDaemonFireStandsForItsSlot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "tick", "none", slot.Add(-time.Minute))

	*f.now = slot.Add(2*time.Minute + 30*time.Second) // the 10:00 fire starts late
	f.d.fire(ctx, f.task, slot)
	f.d.fire(ctx, f.task, slot.Add(2*time.Minute)) // then 10:02's own, on time
	// Retired before its next slot (catchup forget, or a replica with a newer
	// crontab): that slot's fire still stands for it, and registers the task anew.
	if _, err := f.st.Forget(ctx, "tick", *f.now, false); err != nil {
		t.Fatal(err)
	}
	*f.now = slot.Add(3 * time.Minute)
	f.d.fire(ctx, f.task, *f.now)
	want := "2026-03-01T10:00:00Z schedule\n2026-03-01T10:02:00Z schedule\n2026-03-01T10:03:00Z schedule\n"
	if got := f.fires(); got != want {
		t.Errorf("the job ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
	}
	if strings.Contains(f.logs.String(), "duplicate") {
		t.Errorf("a fire was taken for a duplicate:\n%s", f.logs.String())
	}
	if got, err := f.st.Task(ctx, "tick"); err != nil || !got.RetiredAt.IsZero() {
		t.Errorf("after its fire, the task is %+v, %v; want it registered anew", got, err)
	}
}

// TestDaemonFireOfATaskRetiredMeanwhile: a fire that waited to start while
// a reload removed its line (the task retired after its slot came) does
// not run, and does not register the task anew: the removal wins.
func TestDaemonFireOfATaskRetiredMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "gone", "all", slot.Add(-time.Minute))
	*f.now = slot.Add(2 * time.Second)
	if _, err := f.st.Forget(ctx, "gone", *f.now, false); err != nil { // the reload, while the fire waited
		t.Fatal(err)
	}
	*f.now = slot.Add(3 * time.Second)
	f.d.fire(ctx, f.task, slot)
	if got := f.fires(); got != "" {
		t.Errorf("the fire of a task retired after its slot came ran: %q", got)
	}
	if got, err := f.st.Task(ctx, "gone"); err != nil || got.RetiredAt.IsZero() {
		t.Errorf("the task is %+v, %v; want it still retired", got, err)
	}
}

// TestDaemonReplaysARedactedLine: the ledger keeps a line whose command
// carried a secret redacted (catchup.StoredRedacted); the daemon's own
// replays run the line it holds, never the redacted text.
func TestDaemonReplaysARedactedLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "secret", "all", start)
	def := f.task.Def
	def.Argv, def.Source = []string{"/bin/sh", "-c", "touch redacted-ran"}, def.Source+catchup.RedactedMark
	var err error
	if f.task.Def, _, err = catchup.RegisterDaemonTask(ctx, f.st, f.d.cfg.Machine, def, false, time.Time{}); err != nil {
		t.Fatal(err)
	}
	*f.now = start.Add(3 * time.Minute)
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	want := "2026-03-01T10:01:00Z replay\n2026-03-01T10:02:00Z replay\n2026-03-01T10:03:00Z replay\n"
	if got := f.fires(); got != want {
		t.Errorf("the daemon's replays ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
	}
	if _, err := os.Stat(filepath.Join(f.dir, "redacted-ran")); err == nil {
		t.Error("the daemon replayed the redacted command")
	}
}

// TestDaemonFireThatCannotStart: a fire whose job cannot start (its
// crontab's SHELL= is missing) is recorded failed, and logged as a run's
// outcome (event=done status=failed), not as a fire that was skipped: an
// alert on failed runs must see it.
func TestDaemonFireThatCannotStart(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "noshell", "all", slot.Add(-time.Minute))
	f.task.Req.Argv = []string{"/nonexistent/sh", "-c", "true"}
	*f.now = slot.Add(time.Second)
	f.d.fire(context.Background(), f.task, slot)
	if logs := f.logs.String(); !strings.Contains(logs, "event=done") || !strings.Contains(logs, "status=failed") || strings.Contains(logs, "event=skip") {
		t.Errorf("the daemon logged\n%swant event=done status=failed", logs)
	}
}

// TestDaemonScanOfARetiredTaskIsQuiet: the daemon's scan of a task whose
// line a reload removed meanwhile (retired) ends without an error in the
// log: nobody ran catchup forget, and there is nothing to replay.
func TestDaemonScanOfARetiredTaskIsQuiet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "gone", "all", slot.Add(-time.Minute))
	if _, err := f.st.Forget(ctx, "gone", slot, false); err != nil {
		t.Fatal(err)
	}
	*f.now = slot.Add(5 * time.Minute)
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	if logs := f.logs.String(); strings.Contains(logs, "ERROR") {
		t.Errorf("the scan of a retired task logged an error:\n%s", logs)
	}
}

// sharedStderr is the daemon's stderr as cmd gives it: a writer that is
// not a file, over the file itself.
type sharedStderr struct{ f *os.File }

func (s sharedStderr) Write(p []byte) (int, error) { return s.f.Write(p) }
func (s sharedStderr) Underlying() io.Writer       { return s.f }

// TestDaemonNoCaptureKeepsNoOutput: a line's --no-capture keeps its job's
// output out of the ledger under the daemon too, whose stderr, shared
// with its log, is not a file.
func TestDaemonNoCaptureKeepsNoOutput(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "quiet", "all", slot.Add(-time.Minute))
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	f.d.cfg.Machine.Stderr = sharedStderr{null}
	f.task.Req.NoCapture = true
	f.task.Req.Argv = []string{"/bin/sh", "-c", "echo TOKEN-IN-STDERR >&2"}
	*f.now = slot.Add(time.Second)
	f.d.fire(context.Background(), f.task, slot)
	runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: "quiet", Limit: 10})
	if err != nil || len(runs) != 1 {
		t.Fatalf("history: %v, %v", runs, err)
	}
	if r, err := f.st.Run(context.Background(), runs[0].ID); err != nil || len(r.StderrTail) != 0 {
		t.Errorf("run %+v, %v: want no stderr kept (--no-capture)", r, err)
	}
}

// TestDaemonScanLogsWhatItLeft: the daemon's scan log line counts the slots
// it left for the next scan (a lock skip ends a task's replays), as scan's
// own report does: they were missing from it, unaccounted for.
func TestDaemonScanLogsWhatItLeft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "held", "all", start)
	if err := os.MkdirAll(f.d.cfg.Machine.LockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(f.d.cfg.Machine.LockDir, "held.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	*f.now = start.Add(3 * time.Minute)
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	if logs := f.logs.String(); !strings.Contains(logs, "event=scan") || !strings.Contains(logs, "missed=3") || !strings.Contains(logs, "left=2") {
		t.Errorf("the daemon logged\n%swant event=scan with missed=3 and left=2", logs)
	}
}
