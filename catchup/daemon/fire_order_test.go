package daemon

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// stalledLedger is a ledger whose next read of a task, once armed, waits
// until released: a fire slowed on its way to the task's lock (a ledger
// busy with another process's write, a loaded machine).
type stalledLedger struct {
	store.Store
	armed   atomic.Bool
	stalled chan struct{} // closed as the armed read begins
	release chan struct{}
}

func (s *stalledLedger) Task(ctx context.Context, name string) (store.Task, error) {
	if s.armed.CompareAndSwap(true, false) {
		close(s.stalled)
		<-s.release
	}
	return s.Store.Task(ctx, name)
}

// TestFireOnTimeKeepsItsTurnToTheLock: a fire on time lets the next fire
// go only once it has tried the task's lock. Released as soon as it had a
// place, the next fire passed one slowed on its way (reading the ledger)
// and ran its later slot first; the slowed one then met the lock held, and
// its slot ran after (TestLongJobRunsItsSlotsInOrder failed so in CI, 4
// runs in 30 under -race on a loaded machine). Here the fire of 10:02 is
// held in its ledger read until the fire of 10:03 has run, or 2 s have
// passed without it (the fix: it waits for 10:02's).
func TestFireOnTimeKeepsItsTurnToTheLock(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", start)
	set := f.movableClock(start)
	f.d.cfg.Rule = catchup.MissedRule{MaxAge: 24 * time.Hour, Tolerance: 5 * time.Minute, FiredAfter: start}
	f.d.cfg.Rescan = 0
	ledger := &stalledLedger{Store: f.d.cfg.Store, stalled: make(chan struct{}), release: make(chan struct{})}
	f.d.cfg.Store = ledger
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	through := new(progress)
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, start, through) }()
	waitFor := f.waiter(t)
	set(time.Date(2026, 3, 1, 10, 1, 1, 0, time.UTC))
	waitFor("the fire of 10:01 to end", f.runsEnded(t, 1))
	select { // its goroutine too: the next read of the task is 10:02's fire's
	case <-through.idle():
	case <-time.After(30 * time.Second):
		t.Fatalf("gave up after 30s waiting for the fire of 10:01 to end; log:\n%s", f.logs.String())
	}
	ledger.armed.Store(true)
	set(time.Date(2026, 3, 1, 10, 2, 1, 0, time.UTC))
	waitFor("the fire of 10:02 to read the ledger", func() bool {
		select {
		case <-ledger.stalled:
			return true
		default:
			return false
		}
	})
	slot3 := time.Date(2026, 3, 1, 10, 3, 0, 0, time.UTC)
	set(slot3.Add(time.Second))
	waitFor("the loop to fire 10:03", func() bool { return !through.get().Before(slot3) })
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(f.fires(), "10:03:00Z") {
			break // passed the stalled fire: the order is lost
		}
	}
	close(ledger.release)
	waitFor("the three fires to end", f.runsEnded(t, 3))
	cancel()
	<-done
	f.d.fires.Wait()
	want := "2026-03-01T10:01:00Z schedule\n2026-03-01T10:02:00Z schedule\n2026-03-01T10:03:00Z schedule\n"
	runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	f.checkRanInOrder(t, want, runs)
}
