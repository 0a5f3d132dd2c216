package notify

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangGuard bounds a wait that must end: a hang guard, not a timing
// assertion.
const hangGuard = 30 * time.Second

// notices collects a pinger's notices.
type notices struct {
	mu    sync.Mutex
	lines []string
}

func (n *notices) add(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, fmt.Sprintf(format, args...))
}

func (n *notices) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string{}, n.lines...)
}

// gate is a monitor whose every request is held until release says how to
// answer it; arrived has each request's path as it comes.
type gate struct {
	arrived chan string
	answer  chan int
}

func newGate(t *testing.T) (*gate, *httptest.Server) {
	g := &gate{arrived: make(chan string, 16), answer: make(chan int)}
	ended := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.arrived <- r.URL.Path
		select {
		case code := <-g.answer:
			w.WriteHeader(code)
		case <-r.Context().Done():
		case <-ended:
		}
	}))
	t.Cleanup(func() { close(ended); srv.Close() })
	return g, srv
}

func (g *gate) next(t *testing.T, want string) {
	t.Helper()
	select {
	case path := <-g.arrived:
		if path != want {
			t.Fatalf("ping %s arrived, want %s", path, want)
		}
	case <-time.After(hangGuard):
		t.Fatalf("no ping %s arrived", want)
	}
}

func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatalf("%s never returned", what)
	}
}

var noticeLine = regexp.MustCompile(`^(start|end) ping http://127\.0\.0\.1:[0-9]+/\.\.\. failed: (.+) \(the job is not affected\)$`)

// TestPingerAnswers: an answer that is not a success is one notice per
// ping, in the documented form; only a 5xx is retried.
func TestPingerAnswers(t *testing.T) {
	tests := map[string]struct {
		status   int
		attempts int
		why      string // "" = no notice
	}{
		"200": {status: 200, attempts: 1},
		"300": {status: 300, attempts: 1, why: "HTTP 300"},
		"404": {status: 404, attempts: 1, why: "HTTP 404"},
		"500": {status: 500, attempts: 1 + pingRetries, why: "HTTP 500"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mon, srv := newMonitor(t, tc.status)
			var n notices
			p := NewPinger(srv.URL+"/ping/secret", n.add)
			p.Start(context.Background())
			p.End(context.Background(), 0, nil)
			// The start ping makes no new attempt once the job has ended
			// (here at once): its attempts are 1 to tc.attempts.
			pings, _ := mon.seen()
			starts, ends := 0, 0
			for _, r := range pings {
				if strings.HasSuffix(r.URL.Path, "/start") {
					starts++
				} else {
					ends++
				}
			}
			if starts < 1 || starts > tc.attempts || ends != tc.attempts {
				t.Errorf("%d start and %d end requests, want 1 to %d and %d", starts, ends, tc.attempts, tc.attempts)
			}
			got := n.all()
			if tc.why == "" {
				if len(got) != 0 {
					t.Errorf("notices %q, want none", got)
				}
				return
			}
			if len(got) != 2 {
				t.Fatalf("notices %q, want one for each ping", got)
			}
			for i, which := range []string{"start", "end"} {
				m := noticeLine.FindStringSubmatch(got[i])
				if m == nil || m[1] != which || m[2] != tc.why {
					t.Errorf("notice %q, want: %s ping URL failed: %s (the job is not affected)", got[i], which, tc.why)
				}
			}
		})
	}
}

// TestPingerStartStopsAtJobEnd: once the job has ended, the start ping
// makes no new attempt; its attempt in flight is waited for, then the end
// ping goes.
func TestPingerStartStopsAtJobEnd(t *testing.T) {
	g, srv := newGate(t)
	var n notices
	p := NewPinger(srv.URL+"/p", n.add)
	p.Start(context.Background())
	g.next(t, "/p/start")
	ended := make(chan struct{})
	go func() { defer close(ended); p.End(context.Background(), 0, nil) }()
	<-p.jobEnded
	g.answer <- 500 // retried, but for the job's end
	g.next(t, "/p") // the end ping, not a second /start
	g.answer <- 200
	returns(t, "End", func() { <-ended })
	if got := n.all(); len(got) != 1 || !strings.HasPrefix(got[0], "start ping ") || !strings.Contains(got[0], "failed: HTTP 500 (the job is not affected)") {
		t.Errorf("notices %q, want the start ping's failure", got)
	}
}

// TestPingerEndCutShort: a stop (ctx cancelled) during the end ping ends
// it at once, and says so.
func TestPingerEndCutShort(t *testing.T) {
	g, srv := newGate(t)
	var n notices
	p := NewPinger(srv.URL+"/p", n.add)
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() { defer close(ended); p.End(ctx, 3, nil) }()
	g.next(t, "/p/3")
	cancel()
	returns(t, "End", func() { <-ended })
	got := n.all()
	if len(got) != 1 || !strings.HasSuffix(got[0], "failed: cut short, catchup was told to stop (the job is not affected)") {
		t.Errorf("notices %q, want the end ping cut short", got)
	}
	select {
	case path := <-g.arrived:
		t.Errorf("ping %s after the stop", path)
	default:
	}
}

// TestPingerBoundedAfterJob: a monitor that never answers holds End for
// afterJob at most, the start ping's attempt in flight included.
func TestPingerBoundedAfterJob(t *testing.T) {
	_, srv := newGate(t)
	var n notices
	p := NewPinger(srv.URL+"/p", n.add)
	// Three attempts of the end ping take at least 3*50ms plus the
	// backoffs (200ms, 400ms): more than afterJob, whatever the load.
	p.attemptTimeout, p.afterJob = 50*time.Millisecond, 300*time.Millisecond
	p.Start(context.Background())
	returns(t, "End", func() { p.End(context.Background(), 0, nil) })
	got := n.all()
	if len(got) != 2 || !strings.HasPrefix(got[1], "end ping ") ||
		!strings.Contains(got[1], "failed: gave up 300ms after the job ended (the job is not affected)") {
		t.Errorf("notices %q, want the end ping given up after its bound", got)
	}
}
