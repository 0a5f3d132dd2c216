package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DSNEnv names the variable that holds the DSN of a PostgreSQL server the
// tests may use, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
// Each test works in a schema of its own, dropped when it ends.
const DSNEnv = "CATCHUP_TEST_POSTGRES_DSN"

// skipped counts the tests PostgresDSN skipped.
var skipped atomic.Int64

// Main runs the tests of package pkg, for its TestMain. When some were
// skipped for want of a server, it says so on stderr, once: how many, and
// how to run them. (go test shows it with -v, in a directory's own run, or
// when the package fails: it hides what a passing package prints.)
func Main(m *testing.M, pkg string) {
	code := m.Run()
	if n := skipped.Load(); n > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d PostgreSQL tests skipped: %s is not set; run them with %s='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' go test ./store/...\n",
			pkg, n, DSNEnv, DSNEnv)
	}
	os.Exit(code)
}

// PostgresDSN returns the test server's DSN, or skips the test.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		skipped.Add(1)
		t.Skip(DSNEnv + " not set: PostgreSQL test skipped")
	}
	return dsn
}

// PostgresLedger creates a schema of its own for the test (dropped when it ends)
// and returns a DSN whose search_path is that schema.
func PostgresLedger(t testing.TB) string {
	t.Helper()
	dsn := PostgresDSN(t)
	var b [6]byte
	rand.Read(b[:])
	schema := "catchup_test_" + hex.EncodeToString(b[:])
	admin := PostgresAdmin(t, dsn)
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
	return withSchema(t, dsn, schema)
}

// withSchema sets the search_path of a URL DSN.
func withSchema(t testing.TB, dsn, schema string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", DSNEnv, err)
	}
	q := u.Query()
	q.Set("options", "-csearch_path="+schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// PostgresAdmin opens a plain connection to the test server (any schema), closed
// when the test ends.
func PostgresAdmin(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
