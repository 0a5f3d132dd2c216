package notify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// TestPingerFollowsNoRedirect: an answer of 300 or more is a failure at
// once (contract.md, --ping), a redirect too. Followed, a 307 or 308 would
// POST the job's output tail again to wherever Location says (another
// host: a leak), and a 301, 302 or 303 would become a GET that passes.
func TestPingerFollowsNoRedirect(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			elsewhere, target := newMonitor(t, 200)
			var mu sync.Mutex
			var mon []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				mon = append(mon, r.Method+" "+r.URL.Path)
				mu.Unlock()
				http.Redirect(w, r, target.URL+"/redirected", status)
			}))
			t.Cleanup(srv.Close)
			var n notices
			p := NewPinger(srv.URL+"/ping/secret", n.add)
			p.Start(context.Background())
			p.End(context.Background(), 0, []byte("secret-output"))
			if pings, bodies := elsewhere.seen(); len(pings) != 0 {
				t.Errorf("the redirect was followed: %d requests reached its Location (bodies %q)", len(pings), bodies)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(mon) != 2 {
				t.Errorf("the monitor got %q, want one start and one end ping (a 3xx is not retried)", mon)
			}
			got := n.all()
			if len(got) != 2 {
				t.Fatalf("notices %q, want one for each ping", got)
			}
			for i, which := range []string{"start", "end"} {
				m := noticeLine.FindStringSubmatch(got[i])
				if want := "HTTP " + strconv.Itoa(status); m == nil || m[1] != which || m[2] != want {
					t.Errorf("notice %q, want: %s ping URL failed: %s (the job is not affected)", got[i], which, want)
				}
			}
		})
	}
}
