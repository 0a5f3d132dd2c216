package notify

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// monitor is a local healthchecks-style server that records every ping.
type monitor struct {
	mu     sync.Mutex
	pings  []*http.Request
	bodies []string
	status int
}

func newMonitor(t *testing.T, status int) (*monitor, *httptest.Server) {
	t.Helper()
	m := &monitor{status: status}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.pings, m.bodies = append(m.pings, r), append(m.bodies, string(body))
		m.mu.Unlock()
		w.WriteHeader(m.status)
	}))
	t.Cleanup(srv.Close)
	return m, srv
}

func (m *monitor) seen() ([]*http.Request, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*http.Request{}, m.pings...), append([]string{}, m.bodies...)
}

func TestPingerProtocol(t *testing.T) {
	tests := map[string]struct {
		path     string // appended to the server's URL
		exitCode int
		body     string
		wantEnd  string // the end ping's path
		wantBody string
		wantKey  string // a query parameter of the URL that must survive
	}{
		"success":            {path: "/ping/abc", exitCode: 0, body: "done\n", wantEnd: "/ping/abc", wantBody: "done\n"},
		"failure":            {path: "/ping/abc/", exitCode: 3, body: "broke", wantEnd: "/ping/abc/3", wantBody: "broke"},
		"exit code capped":   {path: "/ping/abc", exitCode: 300, wantEnd: "/ping/abc/255"},
		"query is kept":      {path: "/ping/abc?create=1", exitCode: 2, wantEnd: "/ping/abc/2", wantKey: "create"},
		"body keeps its end": {path: "/p", exitCode: 0, body: strings.Repeat("a", pingBodyMax) + "tail", wantEnd: "/p", wantBody: strings.Repeat("a", pingBodyMax-4) + "tail"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			mon, srv := newMonitor(t, http.StatusOK)
			var notices []string
			p := NewPinger(srv.URL+tc.path, func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) })
			ctx := context.Background()
			p.Start(ctx)
			p.End(ctx, tc.exitCode, []byte(tc.body))
			pings, bodies := mon.seen()
			if len(pings) != 2 {
				t.Fatalf("%d pings, want start and end", len(pings))
			}
			start, end := pings[0], pings[1]
			if !strings.HasSuffix(start.URL.Path, "/start") || end.URL.Path != tc.wantEnd {
				t.Errorf("paths %s then %s, want .../start then %s", start.URL.Path, end.URL.Path, tc.wantEnd)
			}
			rid := start.URL.Query().Get("rid")
			if len(rid) != 36 || end.URL.Query().Get("rid") != rid {
				t.Errorf("rids %q and %q: want one UUID on both", rid, end.URL.Query().Get("rid"))
			}
			if tc.wantKey != "" && (!start.URL.Query().Has(tc.wantKey) || !end.URL.Query().Has(tc.wantKey)) {
				t.Errorf("query parameter %s lost: %s, %s", tc.wantKey, start.URL, end.URL)
			}
			if start.Method != http.MethodPost || bodies[0] != "" || bodies[1] != tc.wantBody {
				t.Errorf("start %s %q, end body %d bytes; want POST, empty start, %d bytes", start.Method, bodies[0], len(bodies[1]), len(tc.wantBody))
			}
			if len(notices) != 0 {
				t.Errorf("notices on a healthy monitor: %q", notices)
			}
		})
	}
}

func TestPingerMonitorDown(t *testing.T) {
	mon, srv := newMonitor(t, http.StatusInternalServerError)
	var notices []string
	p := NewPinger(srv.URL+"/ping/secret-uuid", func(format string, args ...any) {
		notices = append(notices, fmt.Sprintf(format, args...))
	})
	p.End(context.Background(), 0, nil)
	if pings, _ := mon.seen(); len(pings) != 1+pingRetries {
		t.Errorf("%d attempts, want %d", len(pings), 1+pingRetries)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "HTTP 500 (the job is not affected)") {
		t.Fatalf("notices = %q, want one saying the job is not affected", notices)
	}
	if strings.Contains(notices[0], "secret-uuid") {
		t.Errorf("notice shows the URL's secret: %q", notices[0])
	}
}

func TestPingerBadURL(t *testing.T) {
	var notices []string
	p := NewPinger("http://[::1", func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) })
	p.End(context.Background(), 0, nil)
	if len(notices) != 1 || notices[0] != "ping: the URL does not parse" {
		t.Errorf("notices = %q", notices)
	}
	NewPinger("http://[::1", nil).End(context.Background(), 0, nil) // a nil notice is allowed
}
