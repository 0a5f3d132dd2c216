package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestNoJobStartsAfterTheStop: a stop that lands while a fire sets its job
// up to start (its pipes, its environment) keeps the job from starting:
// once the daemon has logged event=stop, no job process starts. The fire
// is recorded interrupted, having run nothing, and the next start's scan
// replays its slot, once. Before, the runner looked at the stop only before
// the set-up: the job started milliseconds after event=stop, to be
// signalled at once (the fire's context is not the one a stop cancels
// anyway: a job outlives it, for its outcome to be recorded).
func TestNoJobStartsAfterTheStop(t *testing.T) {
	t.Parallel()
	registered := time.Date(2026, 3, 1, 10, 0, 50, 0, time.UTC)
	slot := registered.Add(10 * time.Second) // 10:01
	// When the daemon starts: before the slot, its loop fires it; after,
	// its start's scan replays it.
	tests := map[string]time.Time{"a fire": registered, "a replay at the start": slot.Add(30 * time.Second)}
	for _, backend := range []string{"sqlite", "postgres"} {
		for name, started := range tests {
			t.Run(backend+"/"+name, func(t *testing.T) { testNoJobStartsAfterTheStop(t, backend, registered, started, slot) })
		}
	}
}

func testNoJobStartsAfterTheStop(t *testing.T, backend string, registered, started, slot time.Time) {
	dir := t.TempDir()
	st, db := replicaLedgers[backend](t, dir)
	var clock atomic.Int64 // the test moves it while the loop reads it
	clock.Store(registered.UnixNano())
	now := registered
	r := newReplica(t, st, db, dir, replicaLockDir(st, dir)("h"), "h", &now)
	r.d.cfg.Machine.Now = func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	r.d.cfg.Rate, r.d.cfg.Grace = 600, 10*time.Second
	r.load(t, "* * * * *")
	r.d.cfg.Tasks = []Task{r.task}
	clock.Store(started.UnixNano())
	r.d.cfg.Rule.FiredAfter = started // as cmd sets it: the loop fires the later slots
	inSetUp, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	r.d.cfg.Machine.BeforeJobStart = func() { once.Do(func() { close(inSetUp); <-release }) }

	stop, done := make(chan os.Signal, 1), make(chan struct{})
	go func() { defer close(done); r.d.Run(stop, nil) }()
	defer func() {
		once.Do(func() {}) // a hook not reached yet holds nothing
		select {
		case stop <- syscall.SIGTERM: // a test that failed before its stop
		default:
		}
		select {
		case <-release:
		default:
			close(release)
		}
		<-done
	}()
	if slot.After(started) {
		clock.Store(slot.UnixNano())
	}
	waitUntil(t, "the 10:01 fire to set its job up", func() bool {
		select {
		case <-inSetUp:
			return true
		default:
			return false
		}
	}, r)
	stop <- syscall.SIGTERM
	waitUntil(t, "the daemon to log event=stop", func() bool { return strings.Contains(r.logs.String(), "event=stop") }, r)
	close(release) // the fire goes on to start its job, after the stop
	waitUntil(t, "the daemon to exit", func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}, r)

	if b, err := os.ReadFile(filepath.Join(dir, "fires.log")); err == nil {
		t.Errorf("the job started after the daemon logged event=stop; it wrote %q; log:\n%s", b, r.logs.String())
	}
	if strings.Contains(r.logs.String(), "event=fire") || strings.Contains(r.logs.String(), "event=done") {
		t.Errorf("a job start was logged after the stop; log:\n%s", r.logs.String())
	}
	runs, err := st.History(context.Background(), store.HistoryFilter{Task: "job", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || !runs[0].Slot.Equal(slot) || runs[0].Status != store.StatusInterrupted || runs[0].ExitCode != nil {
		t.Fatalf("runs recorded %+v; want one, of 10:01, interrupted with no exit status (it ran nothing); log:\n%s", runs, r.logs.String())
	}
	trigger := "trigger=" + map[bool]string{true: triggerSchedule, false: triggerReplay}[slot.After(started)]
	if !strings.Contains(r.logs.String(), "the daemon stopped before its job started") || !strings.Contains(r.logs.String(), trigger) {
		t.Errorf("the log does not say why the fire ran nothing:\n%s", r.logs.String())
	}

	// The next start's scan replays the slot, once.
	clock.Store(slot.Add(40 * time.Second).UnixNano()) // 10:01:40
	next := newReplica(t, st, db, dir, replicaLockDir(st, dir)("h"), "h", &now)
	next.d.cfg.Machine.Now = r.d.cfg.Machine.Now
	next.d.cfg.Rule.FiredAfter = next.d.cfg.Machine.Now()
	next.task = r.task
	next.d.scan(context.Background(), next.task, time.Time{}, time.Time{})
	if got := ran(t, dir); got[slot.Format(time.RFC3339)] != 1 {
		t.Errorf("after the next start's scan the job ran %v, want 10:01 once; log:\n%s", got, next.logs.String())
	}
	next.d.scan(context.Background(), next.task, time.Time{}, time.Time{})
	if got := ran(t, dir); got[slot.Format(time.RFC3339)] != 1 {
		t.Errorf("after a second scan the job ran %v, want 10:01 once", got)
	}
}

// waitUntil polls cond until it holds, failing t after 30 s naming what never
// happened, with r's log.
func waitUntil(t *testing.T, what string, cond func() bool, r *replica) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after 30s waiting for %s; log:\n%s", what, r.logs.String())
		}
	}
}
