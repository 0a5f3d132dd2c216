package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// postgresSchema creates a schema of its own for one test on the server
// of dsn, dropped when the test ends, and returns a DSN using it.
func postgresSchema(t testing.TB, dsn string) (string, error) {
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

// pgDSN returns the test server's DSN, or skips.
func pgDSN(t *testing.T) string {
	dsn := os.Getenv("CATCHUP_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("CATCHUP_TEST_POSTGRES_DSN not set: PostgreSQL tests skipped")
	}
	return dsn
}
