package daemon

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRetirementRetriedAfterALedgerFault: a reload that removes a line
// whose task the ledger then cannot retire (a full disk, a locked SQLite
// file) stops its loop and tries the retirement again until it passes. It
// was tried once: the task stayed registered, never fired and never
// retired, its slots counted missed by ls --missed and /metrics (an alert
// on a line that is gone) until the daemon restarted.
func TestRetirementRetriedAfterALedgerFault(t *testing.T) {
	// Serial: it shortens reloadRetry, package-wide.
	defer func(d time.Duration) { reloadRetry = d }(reloadRetry)
	reloadRetry = 10 * time.Millisecond
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "gone", "all", started)
	st := &failingForget{Store: f.st}
	st.fail.Store(1)
	logs := &safeBuffer{b: &bytes.Buffer{}}
	d := New(Config{Store: st, Machine: f.d.cfg.Machine, Tasks: []Task{f.task}, Grace: time.Second,
		Log:  slog.New(slog.NewTextHandler(logs, nil)),
		Load: func(context.Context, func(string) time.Time) ([]Task, error) { return nil, nil }}) // the line removed
	stop, hup := make(chan os.Signal, 1), make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() { d.Run(stop, hup); close(done) }()
	hup <- syscall.SIGHUP
	deadline := time.Now().Add(30 * time.Second)
	for {
		task, err := f.st.Task(context.Background(), "gone")
		if err != nil {
			t.Fatal(err)
		}
		if !task.RetiredAt.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			stop <- syscall.SIGTERM
			<-done
			t.Fatalf("the removed line's task not retired within 30s of a retirement the ledger refused once; log:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop <- syscall.SIGTERM
	<-done
}

// failingForget is a ledger that refuses fail more retirements.
type failingForget struct {
	store.Store
	fail atomic.Int32
}

func (f *failingForget) Forget(ctx context.Context, task string, at time.Time, purge bool) (int64, error) {
	if f.fail.Add(-1) >= 0 {
		return 0, errors.New("write ledger catchup.db: database or disk is full (13)")
	}
	return f.Store.Forget(ctx, task, at, purge)
}
