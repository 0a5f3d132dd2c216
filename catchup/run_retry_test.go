package catchup

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// claimHook is a ledger that calls hook at its nth Claim (1-based), before
// (failing it, when hook returns an error) or after it.
type claimHook struct {
	store.Store
	nth, claims int
	hook        func() error
}

func (c *claimHook) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	c.claims++
	if c.claims == c.nth {
		if err := c.hook(); err != nil {
			return store.ClaimResult{}, err
		}
	}
	return c.Store.Claim(ctx, req)
}

// TestRetryClaimFailureStillWaitsItsDelay: a retry whose claim fails (a
// full disk) records the failed attempt alone, and still waits its
// --retry-delay before it runs unrecorded: the delay is the job's.
func TestRetryClaimFailureStillWaitsItsDelay(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Argv = []string{"sh", "-c", "exit 3"}
	req.Retries, req.RetryDelay = 1, time.Second
	st := &claimHook{Store: f.st, nth: 2, hook: func() error { return errors.New("disk I/O error") }}
	start := time.Now()
	if _, err := Run(context.Background(), st, nil, f.m, req); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("the retry ran %s after the first attempt began, before its 1s delay", waited)
	}
	if h := f.history(t); len(h) != 1 || h[0].Status != store.StatusFailed {
		t.Errorf("history %+v: want the failed first attempt recorded", h)
	}
}

// TestRetryCutInItsDelay: a stop during a retry's delay (the retry already
// claimed) records the retry interrupted; catchup's outcome, its exit
// status, its end ping and its notify are the failed attempt's, which is
// what the slot keeps.
func TestRetryCutInItsDelay(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var pings []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		pings = append(pings, r.URL.Path)
		mu.Unlock()
	}))
	defer srv.Close()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Argv = []string{"sh", "-c", "exit 3"}
	req.Retries, req.RetryDelay = 1, time.Hour
	req.Ping = srv.URL + "/abc"
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	st := &claimHook{Store: f.st, nth: 2, hook: func() error { stop(); return nil }} // a SIGTERM as the retry is claimed
	res, err := Run(ctx, st, nil, f.m, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || !res.Ran || res.Run.Status != store.StatusFailed || res.Run.Attempt != 1 {
		t.Errorf("result %+v: want the failed first attempt's (exit 3)", res)
	}
	h := f.history(t)
	if len(h) != 2 || h[0].Status != store.StatusFailed || h[1].Status != store.StatusInterrupted || h[1].Attempt != 2 {
		t.Errorf("history %+v: want attempt 1 failed, attempt 2 interrupted", h)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(pings, []string{"/abc/start", "/abc/3"}) {
		t.Errorf("pings %v: want start, then the failed attempt's exit status", pings)
	}
}

// TestRetryStartsAfterItsDelay: a retry is claimed when its delay begins,
// but its record starts when its command does.
func TestRetryStartsAfterItsDelay(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	begin := time.Now()
	f.m.Now = func() time.Time { return f.now.Add(time.Since(begin)) }
	req := f.request(t)
	req.Argv = []string{"sh", "-c", "exit 3"}
	req.Retries, req.RetryDelay = 1, 500*time.Millisecond
	if res := f.run(t, req); res.ExitCode != 3 {
		t.Fatalf("exit %d, want 3", res.ExitCode)
	}
	h := f.history(t)
	if len(h) != 2 {
		t.Fatalf("history %+v: want two attempts", h)
	}
	// Its delay is not in its record: it starts once the delay is over.
	if gap := h[1].StartedAt.Sub(h[0].EndedAt); gap < 500*time.Millisecond {
		t.Errorf("the retry started %s after the failed attempt ended: want its 500ms delay between", gap)
	}
}
