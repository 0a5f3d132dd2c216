// Package pgtest is what the test suites share about the real PostgreSQL
// server they run against: where it is (CATCHUP_TEST_POSTGRES_DSN), a
// schema of its own per test, and the one line that says the PostgreSQL
// tests were skipped.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the variable holding the test server's DSN.
const EnvDSN = "CATCHUP_TEST_POSTGRES_DSN"

// SkipNotice is the line printed when EnvDSN is unset.
const SkipNotice = "PostgreSQL tests skipped: set " + EnvDSN +
	"='postgres://USER@127.0.0.1:5432/DB?sslmode=disable' to run them"

// Notice prints SkipNotice once, from a TestMain, when EnvDSN is unset.
// It goes to stderr (shown by go test -v, by `go test` in the package's
// directory, and when the package fails) and to the terminal, if there is
// one: `go test ./...` hides the output of a package that passes, and a
// skip nobody sees is the silent skip this line exists to end.
func Notice(pkg string) {
	if os.Getenv(EnvDSN) != "" {
		return
	}
	line := pkg + ": " + SkipNotice + "\n"
	fmt.Fprint(os.Stderr, line)
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		fmt.Fprint(tty, line)
		tty.Close()
	}
}

// DSN returns the test server's DSN, or skips t.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		t.Skip(EnvDSN + " not set: PostgreSQL test skipped")
	}
	return dsn
}

// Schema creates a schema of its own for one test on the server of dsn,
// dropped when the test ends, and returns a DSN using it.
func Schema(t testing.TB, dsn string) (string, error) {
	var b [6]byte
	rand.Read(b[:])
	schema := "catchup_cli_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", err
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), dsn)
		if err == nil {
			c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("options", "-csearch_path="+schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
