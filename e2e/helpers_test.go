package e2e

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/internal/pgtest"
	_ "modernc.org/sqlite"
)

// tempLedger is a SQLite ledger location in a directory of the test's own
// (the file is created by the first catchup that opens it).
func tempLedger(t *testing.T) (dir, db string) {
	dir = t.TempDir()
	return dir, filepath.Join(dir, "state", "catchup.db")
}

// pgLedger is a shared ledger of the test's own on the PostgreSQL test
// server: a schema dropped when the test ends. Skips without a server.
func pgLedger(t *testing.T) string {
	t.Helper()
	db, err := pgtest.Schema(t, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// ledgerRows queries a SQLite ledger directly, as an auditor would.
func ledgerRows(t *testing.T, db, query string, args ...any) [][]string {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func integrityOK(t *testing.T, db string) {
	t.Helper()
	if got := ledgerRows(t, db, `PRAGMA integrity_check`); len(got) != 1 || got[0][0] != "ok" {
		t.Fatalf("integrity_check: %v", got)
	}
}

// readLines returns the lines of a file (none if it does not exist).
func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustUnix(t *testing.T, s string) int64 {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v.Unix()
}

// checkpointed leaves the SQLite ledger at db as one file: every page in
// it, no -wal or -shm (a default close, as here, checkpoints and deletes
// them; catchup's own close keeps the WAL).
func checkpointed(t *testing.T, db string) {
	t.Helper()
	ledgerRows(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`)
	for _, f := range []string{db + "-wal", db + "-shm"} {
		if _, err := os.Stat(f); err == nil {
			t.Fatalf("%s is still there after a checkpoint and close", f)
		}
	}
}
