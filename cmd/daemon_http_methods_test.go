package cmd

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDaemonHTTPAnswersReadsOnly: /healthz and /metrics answer GET and
// HEAD; any other method is refused (405, naming those it takes) without
// reading the ledger, and a request's headers are bounded (431).
func TestDaemonHTTPAnswersReadsOnly(t *testing.T) {
	_, _, addr := listeningDaemon(t)
	client := &http.Client{Timeout: 30 * time.Second}
	for _, tc := range []struct {
		name, method, path string
		header             string
		want               int
	}{
		{name: "get metrics", method: "GET", path: "/metrics", want: 200},
		{name: "head metrics", method: "HEAD", path: "/metrics", want: 200},
		{name: "post metrics", method: "POST", path: "/metrics", want: 405},
		{name: "delete healthz", method: "DELETE", path: "/healthz", want: 405},
		{name: "put metrics", method: "PUT", path: "/metrics", want: 405},
		{name: "other path", method: "GET", path: "/", want: 404},
		{name: "huge header", method: "GET", path: "/metrics", header: strings.Repeat("x", 1<<20), want: 431},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, "http://"+addr+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.header != "" {
				req.Header.Set("X-Big", tc.header)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s %s: %d; want %d", tc.method, tc.path, resp.StatusCode, tc.want)
			}
			if tc.want == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: Allow %q; want GET, HEAD", tc.method, tc.path, resp.Header.Get("Allow"))
			}
		})
	}
}
