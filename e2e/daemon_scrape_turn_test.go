package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestDaemonScrapesReadOneAtATime: scrapes of `--listen`'s /metrics, each
// of which reads the whole ledger, read it one at a time. A storm of them
// (every scraper at once, a slow ledger making them pile up) took every
// connection of the daemon's pool to a PostgreSQL ledger (and its one
// connection to a SQLite ledger, and the CPU), and the fires queued
// behind them: seconds late. Here the ledger's tables are locked, so that
// each scrape hangs in its reading: one at a time waits on the lock, the
// others wait for their turn without a connection; once the lock is gone
// every scrape is answered.
func TestDaemonScrapesReadOneAtATime(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	crontab := filepath.Join(t.TempDir(), "crontab")
	// A line that never comes due in the test: only the scrapes read.
	if err := os.WriteFile(crontab, []byte("CRON_TZ=UTC\n# catchup: task=mine\n0 0 1 6 * true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The task loop's scan at start reads the ledger too, and on a loaded
	// machine it came after the lock below: its wait counted as a second
	// scrape's. So the line is registered first by a daemon whose clock
	// is before its latest slot: the daemon under test replays that slot
	// at start and logs it (event=scan), and reads nothing more before
	// next year (--rescan 0).
	now := time.Now().UTC()
	slot := time.Date(now.Year(), time.June, 1, 0, 0, 0, 0, time.UTC)
	if slot.After(now) {
		slot = slot.AddDate(-1, 0, 0)
	}
	before := newCatchup(t, db, slot.Add(-time.Hour).Format(time.RFC3339), "daemon", "--crontab", crontab, "--rescan", "0")
	if err := before.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first daemon to register the line (its event=start line)", func() bool {
		return strings.Contains(before.stderr.String(), "event=start")
	})
	before.cmd.Process.Signal(syscall.SIGTERM)
	if err := before.cmd.Wait(); err != nil {
		t.Fatalf("first daemon: %v\n%s", err, before.stderr.String())
	}

	d := newCatchup(t, db, "", "daemon", "--crontab", crontab, "--listen", "127.0.0.1:0", "--rescan", "0")
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL); d.cmd.Wait() })
	addr := listenAddr(t, d)
	waitFor(t, "the daemon's scan at start to replay "+slot.Format(time.RFC3339)+" (its event=scan line)", func() bool {
		return strings.Contains(d.stderr.String(), "event=scan")
	})

	ctx := context.Background()
	admin, err := pgx.Connect(ctx, db) // in the ledger's schema
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE tasks, runs IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}

	const scrapes = 6
	codes := make(chan int, scrapes)
	client := &http.Client{Timeout: time.Minute}
	for range scrapes {
		go func() {
			resp, err := client.Get("http://" + addr + "/metrics")
			if err != nil {
				t.Errorf("scrape: %v", err)
				codes <- 0
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	// waiting counts the daemon's sessions waiting on the lock.
	waiting := func() int {
		var n int
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_locks
			WHERE NOT granted AND relation IN ('tasks'::regclass, 'runs'::regclass)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitFor(t, "a scrape to wait on the locked ledger", func() bool { return waiting() >= 1 })
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if n := waiting(); n > 1 {
			t.Fatalf("%d scrapes read the ledger at once; want one at a time", n)
		}
	}
	tx.Rollback(ctx)
	for range scrapes {
		select {
		case code := <-codes:
			if code != http.StatusOK && code != http.StatusServiceUnavailable {
				t.Errorf("a scrape was answered %d; want 200, or 503 when its turn did not come", code)
			}
		case <-time.After(waitLimit):
			t.Fatalf("a scrape not answered %v after the ledger was unlocked", waitLimit)
		}
	}
}
