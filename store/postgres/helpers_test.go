package postgres_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
	"github.com/catchup/catchup/store/postgres"
	"github.com/catchup/catchup/store/sqlite"
)

func TestMain(m *testing.M) { storetest.Main(m, "store/postgres") }

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

// openPG opens the PostgreSQL ledger at dsn as one more "host", closed when
// the test ends.
func openPG(t testing.TB, dsn string) *postgres.Ledger {
	t.Helper()
	p, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		loc, _ := store.ParseLocation(dsn)
		t.Fatalf("Open(%s): %v", loc.Redacted(), err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// sqliteLedger opens a fresh SQLite ledger, the source of an import.
func sqliteLedger(t testing.TB) *sqlite.Ledger {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
