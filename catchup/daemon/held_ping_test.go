package daemon

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestHeldFiresWaitForNoEndPing: the fires of a task held back to run one
// after another (slots that came while the daemon started, here; behind
// its replays or a place under --concurrency alike) each start once the
// fire before it has recorded its outcome, not once that fire's end ping
// has returned. With a monitor that takes the connection and never
// answers, each waited out the end ping before it (10 s): the slots ran
// 10 s apart, a long queue later and later. The end pings still go out,
// one per start ping (none lost), and each slot runs once, oldest first.
func TestHeldFiresWaitForNoEndPing(t *testing.T) {
	t.Parallel()
	places := map[string]int{"no bound": 0, "concurrency 1": 1}
	for backend, open := range replicaLedgers {
		for name, n := range places {
			t.Run(backend+"/"+name, func(t *testing.T) { testHeldFiresWaitForNoEndPing(t, open, n) })
		}
	}
}

// hungMonitor is a healthchecks-style monitor that answers start pings
// and holds every end ping unanswered until released.
type hungMonitor struct {
	mu       sync.Mutex
	starts   []string      // the rids of the start pings, as they came
	ends     []string      // the rids of the end pings answered, as they came
	endPing  chan struct{} // closed as the first end ping comes
	release  chan struct{} // closed (answer): the end pings are answered
	endOnce  sync.Once
	freeOnce sync.Once
}

// answer lets the monitor answer the end pings, those held and those to come.
func (h *hungMonitor) answer() { h.freeOnce.Do(func() { close(h.release) }) }

func newHungMonitor(t *testing.T) (*hungMonitor, string) {
	h := &hungMonitor{endPing: make(chan struct{}), release: make(chan struct{})}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(h.answer) // before srv.Close, which waits for the handlers
	return h, srv.URL + "/ping/tok"
}

func (h *hungMonitor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rid := r.URL.Query().Get("rid")
	if strings.HasSuffix(r.URL.Path, "/start") {
		h.mu.Lock()
		h.starts = append(h.starts, rid)
		h.mu.Unlock()
		return
	}
	h.endOnce.Do(func() { close(h.endPing) })
	select {
	case <-r.Context().Done(): // catchup gave the attempt up
	case <-h.release:
		h.mu.Lock()
		h.ends = append(h.ends, rid)
		h.mu.Unlock()
	}
}

func testHeldFiresWaitForNoEndPing(t *testing.T, open func(*testing.T, string) (store.Store, string), places int) {
	dir := t.TempDir()
	st, db := open(t, dir)
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	now := started
	r := newReplica(t, st, db, dir, replicaLockDir(st, dir)("h"), "h", &now)
	var clock atomic.Int64
	clock.Store(started.UnixNano())
	r.d.cfg.Machine.Now = func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	r.d.cfg.Rate = 600
	r.load(t, "* * * * *")
	if places > 0 {
		r.d.limiter = make(chan struct{}, places)
	}
	mon, url := newHungMonitor(t)
	r.task.Req.Ping = url
	r.d.cfg.Rule.FiredAfter = started
	clock.Store(started.Add(3*time.Minute + 10*time.Second).UnixNano()) // the loop begins at 10:03:40: 10:01, 10:02, 10:03 came

	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); r.d.loop(context.Background(), lctx, r.task, started, new(progress)) }()
	select {
	case <-mon.endPing:
	case <-time.After(30 * time.Second):
		t.Fatalf("no end ping 30s after the loop began; log:\n%s", r.logs.String())
	}
	// The end ping of 10:01 hangs; the held fires of 10:02 and 10:03 run
	// meanwhile. 10:01's end ping returned once its fire logs event=done:
	// the monitor never answers before the release, so only as catchup
	// gives it up (3 s an attempt, 10 s in all).
	pingOver := func() bool {
		return strings.Contains(r.logs.String(), "event=done task=job slot=2026-03-01T10:01:00Z")
	}
	for _, slot := range []string{"2026-03-01T10:02:00Z", "2026-03-01T10:03:00Z"} {
		for deadline := time.Now().Add(30 * time.Second); ran(t, dir)[slot] == 0; time.Sleep(5 * time.Millisecond) {
			if pingOver() {
				t.Fatalf("the held fire of %s waited for the end ping of 10:01 to return; log:\n%s", slot, r.logs.String())
			}
			if time.Now().After(deadline) {
				t.Fatalf("gave up after 30s waiting for the fire of %s; log:\n%s", slot, r.logs.String())
			}
		}
	}
	mon.answer()
	waitUntil(t, "the three fires to record their outcomes", func() bool {
		runs, err := st.History(context.Background(), store.HistoryFilter{Task: "job", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		ended := 0
		for _, run := range runs {
			if run.Status == store.StatusSucceeded {
				ended++
			}
		}
		return ended == 3
	}, r)
	cancel()
	<-done
	r.d.fires.Wait() // every fire's end ping has returned

	if got := ranOrder(dir); got != "2026-03-01T10:01:00Z 2026-03-01T10:02:00Z 2026-03-01T10:03:00Z" {
		t.Errorf("the job ran for %s; want 10:01, 10:02, 10:03, each once, in that order; log:\n%s", got, r.logs.String())
	}
	mon.mu.Lock()
	starts, ends := append([]string{}, mon.starts...), append([]string{}, mon.ends...)
	mon.mu.Unlock()
	sort.Strings(starts)
	// An end ping whose attempt catchup gave up (3 s) and sent again can
	// reach the monitor twice: on a loaded machine the server may see the
	// release before it sees the first attempt's connection closed. At
	// least once is the promise: each start's rid among the ends, once.
	sort.Strings(ends)
	ends = slices.Compact(ends)
	if len(starts) != 3 || strings.Join(starts, ",") != strings.Join(ends, ",") {
		t.Errorf("the monitor got start pings %v and end pings %v; want one end ping for each of the three start pings; log:\n%s",
			starts, ends, r.logs.String())
	}
}

// ranOrder is the slots the job ran for (fires.log in dir), in the order
// it ran them.
func ranOrder(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "fires.log"))
	var slots []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			slots = append(slots, f[0])
		}
	}
	return strings.Join(slots, " ")
}

// failingClaim is a ledger that refuses the claim of the fire of slot,
// once: the fire runs its job unrecorded (a note for the next scan).
type failingClaim struct {
	store.Store
	slot   time.Time
	failed atomic.Bool
}

func (f *failingClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if req.Run.Trigger == store.TriggerSchedule && req.Run.Slot.Equal(f.slot) && f.failed.CompareAndSwap(false, true) {
		return store.ClaimResult{}, errors.New("disk I/O error")
	}
	return f.Store.Claim(ctx, req)
}

// TestHeldFireAfterAnUnrecordedFireWaitsForIt: the held fire after one
// the ledger could not record (its job ran unrecorded, a note for the next
// scan) still waits for that fire to end, end ping and all: that slot is
// not settled in the ledger, and the fire notes it owed as it ends, for
// the next fire to replay first (replayOwed: it runs the slot again only
// when the note was lost too). Only a recorded outcome lets the next go
// before the end ping (TestHeldFiresWaitForNoEndPing). Let go at the
// outcome here, 10:02's fire started during 10:01's end ping, before 10:01
// was noted owed (it recorded 10:01's note itself: no slot ran out of
// order in this case, with the note kept).
func TestHeldFireAfterAnUnrecordedFireWaitsForIt(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", started)
	set := f.movableClock(started)
	f.d.cfg.Rule.FiredAfter = started
	f.d.cfg.Rule.MaxAge = 24 * time.Hour
	f.d.cfg.Store = &failingClaim{Store: f.st, slot: time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC)}
	mon, url := newHungMonitor(t)
	f.task.Req.Ping = url
	set(started.Add(2*time.Minute + 10*time.Second)) // the loop begins at 10:02:40: 10:01 and 10:02 came

	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, started, new(progress)) }()
	waitFor := f.waiter(t)
	waitFor("the end ping of 10:01", func() bool {
		select {
		case <-mon.endPing:
			return true
		default:
			return false
		}
	})
	// 10:01's end ping hangs until catchup gives it up (10 s): 10:02's
	// fire waits for it.
	firstEnded := func() bool {
		return strings.Contains(f.logs.String(), "event=done task=tick slot=2026-03-01T10:01:00Z")
	}
	waitFor("10:01's fire to end, or 10:02's job to start", func() bool {
		return firstEnded() || strings.Contains(f.fires(), "10:02:00Z")
	})
	if !firstEnded() {
		t.Fatalf("10:02's job started while 10:01's unrecorded fire was in its end ping; fires:\n%slog:\n%s", f.fires(), f.logs.String())
	}
	mon.answer()
	waitFor("10:02's fire", func() bool { return strings.Contains(f.fires(), "10:02:00Z") })
	cancel()
	<-done
	f.d.fires.Wait()
	if got, want := f.fires(), "2026-03-01T10:01:00Z schedule\n2026-03-01T10:02:00Z schedule\n"; got != want {
		t.Errorf("the job ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
	}
}
