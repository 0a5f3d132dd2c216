package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// pingLog is a local healthchecks-style monitor that records every ping.
type pingLog struct {
	mu   sync.Mutex
	hits []string // "METHOD PATH rid=... body"
}

func (p *pingLog) handler(delay time.Duration, status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.hits = append(p.hits, r.Method+" "+r.URL.Path+" rid="+r.URL.Query().Get("rid")+" "+strings.TrimSpace(string(body)))
		p.mu.Unlock()
		time.Sleep(delay)
		w.WriteHeader(status)
	})
}

func (p *pingLog) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string{}, p.hits...)
}

func TestPing(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	tests := map[string]struct {
		job      string
		wantCode int
		wantEnd  string // path of the end ping
		wantBody string
	}{
		"success": {job: "echo all good", wantCode: 0, wantEnd: "/check", wantBody: "all good"},
		"failure": {job: "echo broke >&2; exit 3", wantCode: 3, wantEnd: "/check/3", wantBody: "broke"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var log pingLog
			srv := httptest.NewServer(log.handler(0, 200))
			defer srv.Close()
			_, db := tempLedger(t)
			p := newCatchup(t, db, "", "run", "--task", "pinged", "--ping", srv.URL+"/check", "--", "sh", "-c", tc.job)
			if code := p.run(t); code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, p.stderr.String())
			}
			hits := log.list()
			if len(hits) != 2 {
				t.Fatalf("pings: %q, want start and end", hits)
			}
			start, end := strings.Fields(hits[0]), strings.Fields(hits[1])
			if start[1] != "/check/start" || end[1] != tc.wantEnd {
				t.Errorf("pinged %s then %s, want /check/start then %s", start[1], end[1], tc.wantEnd)
			}
			if start[2] != end[2] || len(start[2]) < len("rid=")+36 {
				t.Errorf("start and end must share one rid: %s vs %s", start[2], end[2])
			}
			if !strings.Contains(hits[1], tc.wantBody) {
				t.Errorf("end ping body %q lacks the output tail %q", hits[1], tc.wantBody)
			}
		})
	}
}

// TestPingURLWithQuery: the protocol's suffixes go on the path, so a ping
// URL with a query of its own (Uptime Kuma push URLs have one) keeps it.
func TestPingURLWithQuery(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	var log pingLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.mu.Lock()
		log.hits = append(log.hits, r.URL.Path+"?"+r.URL.Query().Get("status"))
		log.mu.Unlock()
	}))
	defer srv.Close()
	_, db := tempLedger(t)
	p := newCatchup(t, db, "", "run", "--task", "kuma", "--ping", srv.URL+"/api/push/SECRET?status=up", "--", "sh", "-c", "exit 2")
	if code := p.run(t); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if got := strings.Join(log.list(), " "); got != "/api/push/SECRET/start?up /api/push/SECRET/2?up" {
		t.Errorf("pings %q", got)
	}
}

// TestPingMonitorDown: a monitor that refuses connections or answers 500
// never fails the job; catchup says so in one line.
func TestPingMonitorDown(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	var log pingLog
	broken := httptest.NewServer(log.handler(0, 500))
	defer broken.Close()
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL
	refused.Close()
	for name, url := range map[string]string{"refused": refusedURL + "/secret-uuid", "http 500": broken.URL + "/secret-uuid"} {
		t.Run(name, func(t *testing.T) {
			_, db := tempLedger(t)
			p := newCatchup(t, db, "", "run", "--task", "pinged", "--ping", url, "--", "true")
			done := make(chan int, 1)
			go func() { done <- p.run(t) }()
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit %d: a down monitor failed the job", code)
				}
			case <-time.After(60 * time.Second): // a hang guard, not a timing assertion
				t.Fatal("catchup hung on a down monitor")
			}
			if !strings.Contains(p.stderr.String(), "the job is not affected") {
				t.Errorf("stderr %q: want a line saying the ping failed", p.stderr.String())
			}
			if strings.Contains(p.stderr.String(), "/secret-uuid") {
				t.Errorf("stderr %q shows the ping URL's secret path", p.stderr.String())
			}
			if st := ledgerRows(t, db, `SELECT status FROM runs`); st[0][0] != "succeeded" {
				t.Errorf("run recorded %v", st)
			}
		})
	}
}
