//go:build unix

package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

func TestOpenSQLiteCreatesPrivateFiles(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)

	base := t.TempDir()
	dir := filepath.Join(base, "state", "catchup")
	path := filepath.Join(dir, "ledger.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	// Write something so that the WAL exists while the ledger is open.
	if err := s.UpsertTask(t.Context(), store.Task{Name: "backup", RegisteredAt: t0, UpdatedAt: t0}); err != nil {
		t.Fatalf("UpsertTask: %v", err)
	}

	wantMode := map[string]fs.FileMode{
		filepath.Join(base, "state"): fs.ModeDir | 0o700,
		dir:                          fs.ModeDir | 0o700,
		path:                         0o600,
		// SQLite gives its side files the mode of the database file.
		path + "-wal": 0o600,
		path + "-shm": 0o600,
	}
	for p, want := range wantMode {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && strings.Contains(p, ".db-") {
			continue // side files are SQLite's business; check them only if present
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// Reopening an existing ledger is fine, and keeps what it holds.
	s = openLedger(t, path)
	if _, err := s.Task(t.Context(), "backup"); err != nil {
		t.Errorf("Task after reopen: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o600 {
		t.Errorf("after reopen %s: mode %v, want 0600", path, fi.Mode())
	}

	rows, err := rawDB(t, path).QueryContext(t.Context(), `SELECT version FROM schema_version ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var versions []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(versions) != "[1 2 3 4 5 6 7 8 9 10]" {
		t.Errorf("schema_version rows = %v, want [1 2 3 4 5 6 7 8 9 10]", versions)
	}
}

func TestOpenSQLiteSchemaTooNew(t *testing.T) {
	s, path := newLedger(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	if _, err := db.ExecContext(t.Context(), `INSERT INTO schema_version(version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	s2, err := sqlite.Open(t.Context(), path)
	if err == nil {
		s2.Close()
		t.Fatal("Open of a version 99 ledger succeeded")
	}
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Errorf("error %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}

	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("Open changed a ledger it refused (%d bytes before, %d after)", len(before), len(after))
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Errorf("%s-wal left behind after a refused open", path)
	}
}

// A ledger path may hold characters that mean something in a URI.
func TestOpenSQLiteOddPath(t *testing.T) {
	for _, name := range []string{"with space", "hash#tag", "question?mark", "percent%20sign", "per%cent"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			path := filepath.Join(dir, "ledger.db")
			s, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatalf("Open(%q): %v", path, err)
			}
			if err := s.UpsertTask(t.Context(), store.Task{Name: "backup", RegisteredAt: t0}); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			// The ledger must be the file at path, and nothing else may
			// have been created next to it or above it.
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
				t.Errorf("%q is not an SQLite file (%d bytes): SQLite opened another file", path, len(b))
			}
			parent, err := os.ReadDir(filepath.Dir(dir))
			if err != nil {
				t.Fatal(err)
			}
			if len(parent) != 1 {
				var names []string
				for _, e := range parent {
					names = append(names, e.Name())
				}
				t.Errorf("files next to %q: %q", dir, names)
			}
			s = openLedger(t, path)
			if _, err := s.Task(t.Context(), "backup"); err != nil {
				t.Errorf("Task after reopen: %v", err)
			}
		})
	}
}

// Many catchup processes may start at once on a ledger that does not exist
// yet: each must open it, none may see the others' half-made schema as a
// foreign database.
func TestOpenSQLiteConcurrentFirstOpen(t *testing.T) {
	const procs = 8
	for round := range racingRounds() {
		path := filepath.Join(t.TempDir(), "ledger.db")
		var wg sync.WaitGroup
		errs := make([]error, procs)
		for i := range procs {
			wg.Go(func() {
				s, err := sqlite.Open(context.Background(), path)
				if err != nil {
					errs[i] = err
					return
				}
				errs[i] = s.Close()
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, opener %d: %v", round, i, err)
			}
		}
	}
}

// racingRounds is how many rounds a test of racing first opens plays: 20,
// and 5 under -short, which CI's race detector runs (a round there takes
// about a second, and the race shows in any round just as well).
func racingRounds() int {
	if testing.Short() {
		return 5
	}
	return 20
}

func writeFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
