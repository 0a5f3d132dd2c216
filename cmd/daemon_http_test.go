package cmd

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/daemon"
	"github.com/catchup/catchup/store/sqlite"
)

// TestDaemonMetricsWithoutLedger: /metrics serves the daemon's own gauges
// when the ledger cannot be read (it answered 503 as a whole, so the
// alert on the fires the ledger could not record had nothing to read),
// with catchup_daemon_ledger_up 0 and the ledger's families left out.
func TestDaemonMetricsWithoutLedger(t *testing.T) {
	st, d, addr := listeningDaemon(t)
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/metrics"); code != 200 || !strings.Contains(body, "\ncatchup_daemon_ledger_up 1\n") {
		t.Errorf("/metrics with the ledger readable: %d\n%s\nwant 200 and catchup_daemon_ledger_up 1", code, body)
	}
	st.Close() // the ledger can no longer be read
	code, body := get("/metrics")
	if code != 200 {
		t.Errorf("/metrics without the ledger: %d %s; want 200", code, body)
	}
	for _, want := range []string{"\ncatchup_daemon_ledger_up 0\n", "\ncatchup_daemon_scrape_warnings 0\n", "\ncatchup_daemon_fires_unrecorded_total 0\n",
		"\ncatchup_daemon_ledger_failing_seconds 0\n", "\ncatchup_daemon_running_jobs 0\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics without the ledger lacks %q:\n%s", strings.TrimSpace(want), body)
		}
	}
	if strings.Contains(body, "catchup_runs_total") {
		t.Errorf("/metrics without the ledger serves ledger families:\n%s", body)
	}
	problems, err := promlint.NewWithMetricFamilies(append(lagFamilies(d.Lag()), ledgerUp(false), scrapeWarningsFamily(0))).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

// TestListenSaysTheFix: an address the daemon cannot listen on is named
// with the fix: one another process holds (a second daemon?).
func TestListenSaysTheFix(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	ln, err := listenDaemon(addr)
	if err == nil {
		ln.Close()
		t.Fatalf("listened on %s, which another listener holds", addr)
	}
	want := "--listen " + addr + ": listen tcp " + addr + ": bind: address already in use; fix: stop what listens there " +
		"(another catchup daemon?), or give --listen another port"
	if err.Error() != want {
		t.Errorf("err = %v; want %s", err, want)
	}
}

// listeningDaemon is a daemon with no tasks on a new SQLite ledger, its
// HTTP endpoints served on a loopback port (addr); the ledger and the
// listener are closed when the test ends.
func listeningDaemon(t *testing.T) (*sqlite.Ledger, *daemon.Daemon, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m := catchup.Machine{Now: time.Now, Host: "h", Zone: "UTC", LockDir: dir, Stdout: io.Discard, Stderr: io.Discard}
	d := daemon.New(daemon.Config{Store: st, Machine: m, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	serveDaemon(ln, d, st, m, catchup.MissedRule{})
	return st, d, ln.Addr().String()
}
