package cmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/daemon"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// TestDaemonReloadRetriedAfterALedgerWriteFault: a reload whose
// registrations the ledger could not write (a full disk, a SQLite file
// locked past its busy timeout or read-only) is not the crontab's fault:
// it is tried again until it passes, as one refused for an unreachable
// shared ledger is. It was refused once and never again: a line added
// meanwhile never fired, a removed one went on firing, until the next edit
// or SIGHUP.
func TestDaemonReloadRetriedAfterALedgerWriteFault(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	led, err := sqlite.Open(ctx, filepath.Join(dir, "catchup.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	st := &failingRegistrations{Store: led}
	file := filepath.Join(dir, "crontab")
	must(t, os.WriteFile(file, []byte("# catchup: task=a\n0 0 1 1 * true\n"), 0o600))
	now := time.Date(2026, 11, 16, 12, 0, 0, 0, time.UTC)
	m := catchup.Machine{Now: func() time.Time { return now }, Zone: "UTC", Host: "h", UID: os.Geteuid(), PID: os.Getpid(),
		LockDir: filepath.Join(dir, "locks"), DB: filepath.Join(dir, "catchup.db"), Stdout: io.Discard, Stderr: io.Discard,
		HomeDir: func(string) (string, error) { return dir, nil }}
	tasks, err := daemonTasks(ctx, st, m, []string{file}, func(string) time.Time { return time.Time{} }, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.fail.Store(1) // the ledger refuses the next registration
	must(t, os.WriteFile(file, []byte("# catchup: task=a\n0 0 1 1 * true\n# catchup: task=b\n0 0 1 1 * true\n"), 0o600))
	logs := &lockedBuffer{}
	d := daemon.New(daemon.Config{Store: st, Machine: m, Tasks: tasks, Grace: time.Second, Log: slog.New(slog.NewTextHandler(logs, nil)),
		Load: func(ctx context.Context, _ func(string) time.Time) ([]daemon.Task, error) {
			return daemonTasks(ctx, st, m, []string{file}, func(string) time.Time { return time.Time{} }, nil)
		}})
	stop, hup := make(chan os.Signal, 1), make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() { defer close(done); d.Run(stop, hup) }()
	hup <- syscall.SIGHUP
	deadline := time.Now().Add(30 * time.Second) // tried again every 10s
	for _, err := led.Task(ctx, "b"); err != nil; _, err = led.Task(ctx, "b") {
		if time.Now().After(deadline) {
			stop <- syscall.SIGTERM
			<-done
			t.Fatalf("task b of the edited crontab not registered within 30s of a reload the ledger refused once; log:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop <- syscall.SIGTERM
	<-done
	if !strings.Contains(logs.String(), "trying again in") {
		t.Errorf("the refusal did not say the reload is tried again; log:\n%s", logs.String())
	}
}

// failingRegistrations is a ledger that refuses fail more task
// registrations, as a full SQLite file does.
type failingRegistrations struct {
	store.Store
	fail atomic.Int32
}

func (f *failingRegistrations) UpsertTask(ctx context.Context, t store.Task) error {
	if f.fail.Add(-1) >= 0 {
		return errors.New("write ledger catchup.db: database or disk is full (13)")
	}
	return f.Store.UpsertTask(ctx, t)
}

func (f *failingRegistrations) UpsertTaskOf(ctx context.Context, of store.Of, t store.Task) error {
	if f.fail.Add(-1) >= 0 {
		return errors.New("write ledger catchup.db: database or disk is full (13)")
	}
	return f.Store.UpsertTaskOf(ctx, of, t)
}

// lockedBuffer is a buffer the daemon's goroutines log to at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
