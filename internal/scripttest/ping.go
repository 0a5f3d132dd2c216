package scripttest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdPingServer starts a healthchecks-style monitor for the script, in the
// test process, and sets $PINGSRV to its host:port. Every request is
// appended to FILE (default ping.log) as "METHOD PATH?QUERY" the moment it
// arrives, before it is answered. A path with a segment /hang/ is never
// answered (until the script ends); one starting /status/NNN/ is answered
// NNN, with Location: /redirected when NNN is a 3xx (a client that followed
// it shows in the log); any other, 200.
//
//	pingserver [FILE]
func cmdPingServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: pingserver [FILE]")
	}
	logPath := ts.MkAbs("ping.log")
	if len(args) == 1 {
		logPath = ts.MkAbs(args[0])
	}
	var mu sync.Mutex
	ended := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s\n", r.Method, r.URL.RequestURI())
			f.Close()
		}
		mu.Unlock()
		if strings.Contains(r.URL.Path, "/hang/") {
			select {
			case <-r.Context().Done():
			case <-ended:
			}
			return
		}
		if code, ok := statusOf(r.URL.Path); ok {
			if code >= 300 && code < 400 {
				w.Header().Set("Location", "/redirected")
			}
			w.WriteHeader(code)
		}
	}))
	ts.Defer(func() {
		close(ended)
		srv.Close()
	})
	ts.Setenv("PINGSRV", srv.Listener.Addr().String())
}

var statusPath = regexp.MustCompile(`^/status/([1-5][0-9][0-9])/`)

func statusOf(path string) (int, bool) {
	m := statusPath.FindStringSubmatch(path)
	if m == nil {
		return 0, false
	}
	code, err := strconv.Atoi(m[1])
	return code, err == nil
}

// cmdWaitLog waits until FILE has a line that REGEXP matches:
//
//	waitlog ping.log '^POST /hang/abc\?rid='
func cmdWaitLog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitlog FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil {
		ts.Fatalf("waitlog: %v", err)
	}
	path := ts.MkAbs(args[0])
	scriptWait(ts, fmt.Sprintf("a line of %s matching %s", args[0], args[1]), func() bool {
		b, err := os.ReadFile(path)
		return err == nil && re.Match(b)
	})
}
