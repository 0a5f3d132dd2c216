package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store/sqlite"
)

// t0 is a whole-second UTC instant: slots are stored in seconds and other
// times in milliseconds, so test times stay exact through a round trip.
var t0 = time.Date(2025, 3, 4, 5, 0, 0, 0, time.UTC)

// newLedger opens a fresh ledger file in a temporary directory.
func newLedger(t testing.TB) (*sqlite.Ledger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	return openLedger(t, path), path
}

// openLedger opens the ledger at path and closes it when the test ends.
func openLedger(t testing.TB, path string) *sqlite.Ledger {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// rawDB opens a second, plain connection pool on the ledger file.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatalf("open raw %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
