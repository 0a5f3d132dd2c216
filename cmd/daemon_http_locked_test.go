package cmd

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/daemon"
	"github.com/catchup/catchup/internal/pgtest"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/postgres"
	"github.com/catchup/catchup/store/sqlite"
)

// TestDaemonMetricsLedgerLockedElsewhere: a scrape of /metrics reads the
// ledger for scrapeRead at most, then answers with the daemon's own
// metrics and catchup_daemon_ledger_up 0, also while another process holds
// the ledger locked: on SQLite, the daemon's one connection is then held by
// a write waiting out the 30 s busy timeout (a fire's claim), and the
// scrape waited for it, past any scraper's timeout (Prometheus's is 10 s),
// to answer the ledger up at the end; on PostgreSQL, a table locked
// (LOCK TABLE, a migration) holds the reads themselves. A scrape that comes
// while that read still waits answers at once, with the ledger down, not
// after waiting its turn (503).
func TestDaemonMetricsLedgerLockedElsewhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		lock func(t *testing.T) (store.Store, func())
		// next bounds the second scrape: at once where the first's read
		// outlives its bound (SQLite's wait for its connection cannot be
		// cut), scrapeRead where each read gives up by then
		next time.Duration
	}{
		{"sqlite", lockedSQLite, 3 * time.Second},
		{"postgres", lockedPostgres, scrapeRead + 3*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, unlock := tc.lock(t)
			addr := serveMetricsOf(t, st)
			for i, what := range []string{"the scrape that waits for the ledger", "a scrape while that one still waits"} {
				start := time.Now()
				code, body := getMetrics(t, addr)
				took := time.Since(start)
				if code != 200 || !strings.Contains(body, "\ncatchup_daemon_ledger_up 0\n") ||
					!strings.Contains(body, "\ncatchup_daemon_fires_unrecorded_total 0\n") {
					t.Errorf("%s: %d after %s:\n%s\nwant 200 with catchup_daemon_ledger_up 0 and the daemon's own metrics", what, code, took, body)
				}
				if bound := []time.Duration{scrapeRead + 3*time.Second, tc.next}[i]; took > bound {
					t.Errorf("%s took %s; want at most %s", what, took.Round(time.Millisecond), bound)
				}
			}
			unlock()
			waitScrape(t, addr, "\ncatchup_daemon_ledger_up 1\n")
		})
	}
}

// lockedSQLite is a SQLite ledger another connection holds the write lock
// of, and a write of the daemon's waiting for it, holding the ledger's one
// connection: unlock lets it go, and waits for that write.
func lockedSQLite(t *testing.T) (store.Store, func()) {
	path := filepath.Join(t.TempDir(), "c.db")
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() { // as a fire's claim: it waits for the lock, holding the connection
		wrote <- st.SeeBoot(context.Background(), store.Boot{ID: "b", Host: "h", Time: time.Unix(1e9, 0), FirstSeen: time.Unix(1e9, 0), LastSeen: time.Unix(1e9, 0)})
	}()
	// The write has the connection once a read waits behind it (a read
	// of a ledger no one writes answers at once; one that waits is left
	// to end after unlock).
	deadline := time.Now().Add(10 * time.Second)
	for waited := false; !waited; {
		read := make(chan struct{})
		go func() { st.Tasks(context.Background()); close(read) }()
		select {
		case <-read:
		case <-time.After(300 * time.Millisecond):
			waited = true
		}
		if !waited && time.Now().After(deadline) {
			t.Fatal("the write never took the ledger's connection")
		}
	}
	return st, func() {
		if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
			t.Error(err)
		}
		conn.Close()
		if err := <-wrote; err != nil {
			t.Errorf("the write that waited for the lock: %v", err)
		}
	}
}

// lockedPostgres is a shared ledger whose runs table another session holds
// locked (ACCESS EXCLUSIVE: its reads wait): unlock ends that session.
func lockedPostgres(t *testing.T) (store.Store, func()) {
	dsn, err := pgtest.Schema(t, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	st, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(context.Background(), "LOCK TABLE runs IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	return st, func() {
		tx.Rollback(context.Background())
		conn.Close(context.Background())
	}
}

// serveMetricsOf serves a daemon's /healthz and /metrics on st.
func serveMetricsOf(t *testing.T, st store.Store) string {
	t.Helper()
	m := catchup.Machine{Now: time.Now, Host: "h", Zone: "UTC", LockDir: t.TempDir(), Stdout: io.Discard, Stderr: io.Discard}
	d := daemon.New(daemon.Config{Store: st, Machine: m, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	serveDaemon(ln, d, st, m, catchup.MissedRule{})
	return ln.Addr().String()
}

func getMetrics(t *testing.T, addr string) (int, string) {
	t.Helper()
	c := http.Client{Timeout: 45 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitScrape waits until a scrape's answer holds want.
func waitScrape(t *testing.T, addr, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, body := getMetrics(t, addr)
		if strings.Contains(body, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scrape within 30s held %q; the last:\n%s", strings.TrimSpace(want), body)
		}
	}
}
