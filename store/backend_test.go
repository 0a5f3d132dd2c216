package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5"
)

// pgDSNEnv names the variable that holds the DSN of a PostgreSQL server the
// tests may use, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
// Each test works in a schema of its own, dropped when it ends.
const pgDSNEnv = "CATCHUP_TEST_POSTGRES_DSN"

// backend is one implementation of store.Store under test.
type backend struct {
	name string
	// ledger makes an empty ledger and returns its location for store.Open.
	ledger func(t testing.TB) string
}

var backends = []backend{
	{name: "sqlite", ledger: func(t testing.TB) string { return filepath.Join(t.TempDir(), "ledger.db") }},
	{name: "postgres", ledger: pgLedger},
}

// forEachBackend runs f as a subtest for each backend.
func forEachBackend(t *testing.T, f func(t *testing.T, be backend)) {
	t.Helper()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) { f(t, be) })
	}
}

// open opens the ledger at location through store.Open, and closes it when
// the test ends.
func (be backend) open(t testing.TB, location string) store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), location)
	if err != nil {
		t.Fatalf("Open(%s): %v", store.SafeLocation(location), err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// fresh opens a new, empty ledger.
func (be backend) fresh(t testing.TB) store.Store {
	t.Helper()
	return be.open(t, be.ledger(t))
}

// pgBaseDSN returns the test server's DSN, or skips the test.
func pgBaseDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(pgDSNEnv)
	if dsn == "" {
		t.Skip(pgDSNEnv + " not set: PostgreSQL tests skipped")
	}
	return dsn
}

// pgLedger creates a schema of its own for the test (dropped when it ends)
// and returns a DSN whose search_path is that schema.
func pgLedger(t testing.TB) string {
	t.Helper()
	dsn := pgBaseDSN(t)
	var b [6]byte
	rand.Read(b[:])
	schema := "catchup_test_" + hex.EncodeToString(b[:])
	admin := pgAdmin(t, dsn)
	if _, err := admin.Exec(context.Background(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return pgWithSchema(t, dsn, schema)
}

// pgWithSchema sets the search_path of a URL DSN.
func pgWithSchema(t testing.TB, dsn, schema string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", pgDSNEnv, err)
	}
	q := u.Query()
	q.Set("options", "-csearch_path="+schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// pgAdmin opens a plain connection to the test server (any schema), closed
// when the test ends.
func pgAdmin(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// claimedHeartbeat is the heartbeat a ledger records for a claimed run: its
// start on a shared ledger, none on a local one.
func claimedHeartbeat(s store.Store, r store.Run) time.Time {
	if s.Shared() {
		return r.StartedAt
	}
	return time.Time{}
}
