package daemon

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// taskFailsOnce is a ledger whose next read of a task (armed) fails, as a
// ledger out of reach for a moment does.
type taskFailsOnce struct {
	store.Store
	armed atomic.Bool
}

func (s *taskFailsOnce) Task(ctx context.Context, name string) (store.Task, error) {
	if s.armed.CompareAndSwap(true, false) {
		return store.Task{}, errors.New("connection refused (a moment's outage)")
	}
	return s.Store.Task(ctx, name)
}

// Connections is the ledger's: taskFailsOnce is no bound of its own.
func (s *taskFailsOnce) Connections() int { return store.ConnectionsOf(s.Store) }

// TestStartScanFailedUnderRescanZero: under --rescan 0 the start's scan is
// the only one; when it cannot read the ledger (a moment's outage), the
// slots of the downtime are owed: the task's next fire replays them before
// its own slot. Before, the fire ran its slot and they waited for the
// daemon's next start, newer slots running first.
func TestStartScanFailedUnderRescanZero(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 2, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", start.Add(-3*time.Minute)) // registered at 09:59:30
	var now atomic.Int64
	now.Store(start.UnixNano())
	m := f.d.cfg.Machine
	m.Now = func() time.Time { return time.Unix(0, now.Load()).UTC() }
	fs := &taskFailsOnce{Store: f.st}
	f.d = New(Config{Store: fs, Machine: m, Log: slog.New(slog.NewTextHandler(&f.logs, nil)), Rate: 60,
		Rule: catchup.MissedRule{MaxAge: 24 * time.Hour, Tolerance: 5 * time.Minute, FiredAfter: start}})
	fs.armed.Store(true)
	lctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, start, new(progress)) }()
	deadline := time.Now().Add(30 * time.Second)
	for fs.armed.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for !strings.Contains(f.logs.String(), "a moment's outage") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	now.Store(time.Date(2026, 3, 1, 10, 3, 5, 0, time.UTC).UnixNano())
	for !strings.Contains(f.fires(), "10:03:00Z schedule") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	f.d.fires.Wait()
	want := "2026-03-01T10:00:00Z replay\n2026-03-01T10:01:00Z replay\n2026-03-01T10:02:00Z replay\n2026-03-01T10:03:00Z schedule\n"
	if got := f.fires(); got != want {
		t.Errorf("the job ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
	}
}
