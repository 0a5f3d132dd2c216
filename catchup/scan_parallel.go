package catchup

// Replays of several tasks at once, with a limit: what scan --concurrency,
// backfill --concurrency and a daemon's catch-up share. A task's own
// replays always run one at a time, oldest first (its lock would refuse a
// second one anyway); only different tasks overlap.

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"sync"
	"time"
)

// ReplayTasks calls replay(ctx, i) for every task index 0..n-1, at most
// limit at once. A call is one task's whole backlog: it runs that task's
// slots one after another. Tasks start in index order, each as soon as a
// call returns, so that no task waits behind another's backlog while fewer
// than limit run; limit 1 (or less) runs them one after another, in order.
//
// After a call returns an error no further task starts; ReplayTasks waits
// for the calls already running and returns the error of the lowest index.
func ReplayTasks(ctx context.Context, limit, n int, replay func(ctx context.Context, i int) error) error {
	limit = max(1, min(limit, n))
	errs := make([]error, n)
	var (
		mu     sync.Mutex
		next   int
		failed bool
		wg     sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if failed || next >= n {
			return 0, false
		}
		next++
		return next - 1, true
	}
	for w := 0; w < limit; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, ok := take(); ok; i, ok = take() {
				if err := replay(ctx, i); err != nil {
					mu.Lock()
					errs[i], failed = err, true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ReplayProgress is where a run of replays stands, for a progress bar.
type ReplayProgress struct {
	Done    int       // replays finished
	Total   int       // replays planned so far (it grows while tasks are still being planned)
	Running int       // replays running now
	Task    string    // the replay that just started or finished
	Slot    time.Time // its slot
}

// ReplayGate says when a replay may start: not before the jitter has
// passed (once, before the first replay), and not after the budget (counted
// from the end of the jitter); the first replay always starts, so that
// every scan makes progress. It reports progress. It reads only the given
// clock. Safe for concurrent use; a nil gate lets every replay start.
type ReplayGate struct {
	Now      func() time.Time
	Jitter   time.Duration // the wait before the first replay (see HostJitter)
	Budget   time.Duration // 0: no limit
	Progress func(ReplayProgress)
	OnJitter func(wait time.Duration) // told once, when the first replay starts waiting out the jitter

	mu       sync.Mutex
	opened   bool
	deadline time.Time // zero: none
	started  int
	p        ReplayProgress
}

// Plan adds n replays to the total.
func (g *ReplayGate) Plan(n int) {
	if g == nil || n == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.p.Total += n
}

// Start waits for the jitter (before the first replay only) and reports
// whether a replay of task's slot may start now: false once the budget is
// spent or ctx is done.
func (g *ReplayGate) Start(ctx context.Context, task string, slot time.Time) bool {
	if g == nil {
		return ctx.Err() == nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.opened {
		if ctx.Err() != nil { // stopped, maybe in another lane's wait: no wait begins
			return false
		}
		if g.Jitter > 0 && g.OnJitter != nil {
			g.OnJitter(g.Jitter)
		}
		if sleepUntil(ctx, g.Now, g.Now().Add(g.Jitter)) != nil {
			return false
		}
		g.opened = true
		if g.Budget > 0 {
			g.deadline = g.Now().Add(g.Budget)
		}
	}
	if ctx.Err() != nil || (g.started > 0 && !g.deadline.IsZero() && !g.Now().Before(g.deadline)) {
		return false
	}
	g.started++
	g.p.Running++
	g.p.Task, g.p.Slot = task, slot
	g.report()
	return true
}

// Done marks a replay that Start let start as finished.
func (g *ReplayGate) Done(task string, slot time.Time) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.p.Running--
	g.p.Done++
	g.p.Task, g.p.Slot = task, slot
	g.report()
}

func (g *ReplayGate) report() {
	if g.Progress != nil {
		g.Progress(g.p)
	}
}

// sleepUntil waits until the clock reads at least t, or ctx ends. It asks
// the clock again after each wait (at most a second), so an injected clock
// (CATCHUP_NOW) decides when the wait is over.
func sleepUntil(ctx context.Context, now func() time.Time, t time.Time) error {
	for {
		d := t.Sub(now())
		if d <= 0 {
			return ctx.Err()
		}
		timer := time.NewTimer(min(d, time.Second))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// HostJitter is host's share of a jitter of up to limit: the same for a
// given host name at every scan (as systemd's RandomizedDelaySec with
// FixedRandomDelay), and spread over [0, limit) across a fleet. The share
// is a fixed fraction of limit, the host's hash over 2^64 (the high word of
// their product), so twice the limit waits twice as long and a fleet's
// hosts keep their order whatever the limit (a hash modulo the limit gave
// one host 0.86 of 5s and 0.32 of 10h). Whole milliseconds. The hash is
// SHA-256's first 8 bytes: FNV-1a's last step moves only the low bits of its
// hash for another last byte, so web1 to web9 (host-a, host-b) all got the
// same share, and a fleet booting at once replayed at once.
func HostJitter(host string, limit time.Duration) time.Duration {
	ms := limit.Milliseconds()
	if ms <= 0 {
		return 0
	}
	sum := sha256.Sum256([]byte("catchup scan jitter\x00" + host))
	share, _ := bits.Mul64(binary.BigEndian.Uint64(sum[:8]), uint64(ms))
	return time.Duration(share) * time.Millisecond
}
