package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/catchup/catchup/store/internal/storetest"
	"github.com/catchup/catchup/store/sqlite"
)

// Short names for the shared helpers.
var (
	t0        = storetest.T0
	claim     = storetest.Claim
	mustClaim = storetest.MustClaim
	finish    = storetest.Finish
	getRun    = storetest.GetRun
	sameRun   = storetest.SameRun
	ids       = storetest.IDs
	pgLedger  = storetest.PostgresLedger
	pgAdmin   = storetest.PostgresAdmin
)

func intp(v int) *int { return &v }

// newLedger opens a fresh SQLite ledger file in a temporary directory, for
// the tests of what only a SQLite ledger does.
func newLedger(t testing.TB) (*sqlite.Ledger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, path
}

// rawDB opens a second, plain connection pool on a SQLite ledger file.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatalf("open raw %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
