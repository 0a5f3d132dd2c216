package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHeldSlotWarnedOnce: a slot held by a run still running (a long job,
// a replica's) holds back the task's later replays at every rescan; the
// daemon warned of it at each one (about once a second on each replica).
// It says so once per slot and holder, and again for another slot.
func TestHeldSlotWarnedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFireFixture(t, "tick", "all", time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC))
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log
while [ -e hold ]; do sleep 0.02; done`}
	logs := &lockedBuffer{} // the long fire logs while the test reads
	f.d.cfg.Log = slog.New(slog.NewTextHandler(logs, nil))
	set := f.movableClock(time.Date(2026, 3, 1, 10, 1, 1, 0, time.UTC))
	waitFor := f.waiter(t)
	hold := filepath.Join(f.dir, "hold")
	f.d.fire(ctx, f.task, time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC))
	// longFire fires slot with a job that runs until released.
	longFire := func(slot time.Time) (release func()) {
		if err := os.WriteFile(hold, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		set(slot.Add(time.Second))
		done := make(chan struct{})
		go func() { defer close(done); f.d.fire(ctx, f.task, slot) }()
		waitFor("the long job of "+slot.Format(time.Kitchen), func() bool {
			return strings.Contains(f.fires(), slot.Format(time.RFC3339)+" schedule")
		})
		return func() { os.Remove(hold); <-done }
	}
	warned := func() int { return strings.Count(logs.String(), "is held by run") }

	release := longFire(time.Date(2026, 3, 1, 10, 2, 0, 0, time.UTC))
	set(time.Date(2026, 3, 1, 10, 5, 30, 0, time.UTC)) // 10:03 to 10:05 wait behind 10:02
	for range 3 {
		f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	}
	if n := warned(); n != 1 {
		release()
		t.Fatalf("the held slot was warned of %d times in 3 rescans, want once:\n%s", n, logs.String())
	}
	release()
	f.d.scan(ctx, f.task, time.Time{}, time.Time{}) // 10:03 to 10:05 replayed
	release = longFire(time.Date(2026, 3, 1, 10, 6, 0, 0, time.UTC))
	set(time.Date(2026, 3, 1, 10, 8, 30, 0, time.UTC))
	for range 3 {
		f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	}
	release()
	if n := warned(); n != 2 {
		t.Errorf("two held slots were warned of %d times in all, want twice:\n%s", n, logs.String())
	}
}

// lockedBuffer is a log written and read by several goroutines.
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
