package catchup

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestReplayTasksOverlap proves parallelism by a meeting, not by timing:
// with limit 3, three tasks each wait (with a deadline) until all three have
// started; with limit 1 they run in index order, one at a time.
func TestReplayTasksOverlap(t *testing.T) {
	t.Parallel()
	started := make(chan int, 3)
	all := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	n := 0
	err := ReplayTasks(context.Background(), 3, 3, func(ctx context.Context, i int) error {
		started <- i
		mu.Lock()
		if n++; n == 3 {
			once.Do(func() { close(all) })
		}
		mu.Unlock()
		select {
		case <-all:
			return nil
		case <-time.After(30 * time.Second):
			return errors.New("the other tasks never started beside this one")
		}
	})
	if err != nil {
		t.Fatal(err)
	}

	var order []int
	running := 0
	err = ReplayTasks(context.Background(), 1, 4, func(ctx context.Context, i int) error {
		mu.Lock()
		defer mu.Unlock()
		if running++; running > 1 {
			t.Errorf("task %d overlaps another with limit 1", i)
		}
		order = append(order, i)
		running--
		return nil
	})
	if err != nil || len(order) != 4 || order[0] != 0 || order[3] != 3 {
		t.Fatalf("limit 1: order %v, err %v; want 0 1 2 3", order, err)
	}
}

// TestReplayTasksStopsAfterError: no task starts after one failed.
func TestReplayTasksStopsAfterError(t *testing.T) {
	t.Parallel()
	var ran []int
	err := ReplayTasks(context.Background(), 1, 3, func(ctx context.Context, i int) error {
		ran = append(ran, i)
		if i == 1 {
			return errors.New("boom")
		}
		return nil
	})
	if err == nil || len(ran) != 2 {
		t.Fatalf("ran %v, err %v; want 0 1 and boom", ran, err)
	}
}

// TestReplayGateClock: the jitter and the budget are read off the injected
// clock only. A clock that jumps an hour per reading ends a one-hour jitter
// at once and spends the budget after the first replay, which always starts.
func TestReplayGateClock(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	jumps := 0
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		jumps++
		return base.Add(time.Duration(jumps) * time.Hour)
	}
	var waited time.Duration
	g := &ReplayGate{Now: now, Jitter: time.Hour, Budget: 30 * time.Minute, OnJitter: func(d time.Duration) { waited = d }}
	g.Plan(3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !g.Start(ctx, "t", base) {
		t.Fatal("the first replay did not start")
	}
	g.Done("t", base)
	if ctx.Err() != nil || waited != time.Hour {
		t.Fatalf("jitter waited on the wall clock (ctx %v) or was not told (%v)", ctx.Err(), waited)
	}
	if g.Start(ctx, "t", base.Add(time.Hour)) {
		t.Fatal("a replay started after the budget was spent")
	}
}

func TestHostJitter(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		host  string
		limit time.Duration
		want  time.Duration
	}{
		"testhost 5s":  {"testhost", 5 * time.Second, 3275 * time.Millisecond},
		"otherhost 3s": {"otherhost", 3 * time.Second, 1817 * time.Millisecond},
		"no jitter":    {"testhost", 0, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := HostJitter(tc.host, tc.limit); got != tc.want {
				t.Fatalf("HostJitter(%q, %s) = %s, want %s", tc.host, tc.limit, got, tc.want)
			}
		})
	}
}

// TestHostJitterIsAFixedFraction pins what the contract says of --jitter:
// a host's share is a fixed fraction of DUR, so twice the jitter waits
// twice as long, and the hosts of a fleet keep their order whatever DUR.
// Before, the share was the host's hash modulo DUR's milliseconds: testhost
// waited 4.29s of 5s (0.86) but 1.79s of 2.5s (0.72), and 3h14m of 10h
// (0.32).
func TestHostJitterIsAFixedFraction(t *testing.T) {
	t.Parallel()
	limits := []time.Duration{time.Second, 2500 * time.Millisecond, 5 * time.Second, time.Minute, 10 * time.Minute, time.Hour, 10 * time.Hour}
	for _, host := range []string{"testhost", "otherhost", "web-1", "web-2", "db"} {
		base := HostJitter(host, 1000*time.Hour)
		for _, limit := range limits {
			got := HostJitter(host, limit)
			want := time.Duration(float64(base) * float64(limit) / float64(1000*time.Hour))
			if diff := got - want; diff < -time.Millisecond || diff > time.Millisecond {
				t.Errorf("HostJitter(%q, %s) = %s, want %s: the same fraction of DUR as %s of 1000h", host, limit, got, want.Round(time.Millisecond), base)
			}
			if got < 0 || got >= limit {
				t.Errorf("HostJitter(%q, %s) = %s, out of [0, %s)", host, limit, got, limit)
			}
		}
	}
}

// TestReplayGateStoppedInJitterSaysItOnce stops a scan while its first
// replay waits out the jitter: the other lanes' replays then find the gate
// stopped, start nothing and tell no jitter again (with --concurrency 3 the
// notice "--jitter ...: waiting ..." was printed three times after the
// SIGTERM, as if three waits began).
func TestReplayGateStoppedInJitterSaysItOnce(t *testing.T) {
	t.Parallel()
	told := make(chan time.Duration, 10)
	g := &ReplayGate{Now: time.Now, Jitter: time.Hour, OnJitter: func(d time.Duration) { told <- d }}
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan bool)
	go func() { first <- g.Start(ctx, "a", time.Time{}) }()
	<-told // the first replay waits out the jitter
	cancel()
	if <-first {
		t.Fatal("the replay stopped in the jitter started")
	}
	for _, task := range []string{"b", "c"} {
		if g.Start(ctx, task, time.Time{}) {
			t.Fatalf("replay of %s started after the stop", task)
		}
	}
	if n := len(told); n != 0 {
		t.Fatalf("the jitter was told %d more times after the stop", n)
	}
}

// TestHostJitterSpreadsSimilarNames: a fleet's host names mostly differ in
// their last characters (web1, web2, ...; host-a, host-b). Their shares of
// --jitter must still spread over DUR. Before, the share was the high word
// of FNV-1a's hash times DUR, and FNV-1a's last step changes only the low
// bits of the hash for a different last byte: web1 to web9 all waited
// 1.939s of 3s, host-a and host-b 515ms, a fleet booting at once replayed
// at once.
func TestHostJitterSpreadsSimilarNames(t *testing.T) {
	t.Parallel()
	const limit = 30 * time.Second
	fleets := map[string][]string{
		"digits":   {"web1", "web2", "web3", "web4", "web5", "web6", "web7", "web8", "web9"},
		"letters":  {"a", "b", "c", "d", "e"},
		"suffixed": {"host-a", "host-b", "host-c", "host-d"},
		"padded":   {"node-01", "node-02", "node-03", "node-04", "node-05", "node-06"},
	}
	for name, hosts := range fleets {
		t.Run(name, func(t *testing.T) {
			seen := map[time.Duration]string{}
			lo, hi := limit, time.Duration(0)
			for _, host := range hosts {
				d := HostJitter(host, limit)
				if other, ok := seen[d]; ok {
					t.Errorf("hosts %s and %s both wait %s of %s", other, host, d, limit)
				}
				seen[d] = host
				lo, hi = min(lo, d), max(hi, d)
			}
			if hi-lo < limit/4 {
				t.Errorf("hosts %v wait between %s and %s of %s: not spread", hosts, lo, hi, limit)
			}
		})
	}
}
