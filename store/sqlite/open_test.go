//go:build unix

package sqlite_test

import (
	"bytes"
	"context"
	"crypto/rand"
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

func TestOpenCreatesPrivateFiles(t *testing.T) {
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
	if fmt.Sprint(versions) != "[1 2]" {
		t.Errorf("schema_version rows = %v, want [1 2]", versions)
	}
}

func TestOpenSchemaTooNew(t *testing.T) {
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

func TestOpenRejects(t *testing.T) {
	random := make([]byte, 8192)
	rand.Read(random)

	tests := map[string]struct {
		// setup returns the ledger path to open inside dir.
		setup func(t *testing.T, dir string) string
		// want is the error the open must match; nil accepts any error.
		want error
		// names is what the message must contain; "" means the path.
		names string
		root  bool // skip when running as root (permissions do not apply)
	}{
		"random bytes": {
			setup: func(t *testing.T, dir string) string {
				return writeFile(t, filepath.Join(dir, "ledger.db"), random)
			},
			want: store.ErrNotALedger,
		},
		"text file": {
			setup: func(t *testing.T, dir string) string {
				return writeFile(t, filepath.Join(dir, "ledger.db"), []byte("0 * * * * /usr/bin/backup\n"))
			},
			want: store.ErrNotALedger,
		},
		"long text file": {
			setup: func(t *testing.T, dir string) string {
				return writeFile(t, filepath.Join(dir, "ledger.db"), bytes.Repeat([]byte("not a database\n"), 1000))
			},
			want: store.ErrNotALedger,
		},
		"sqlite database of something else": {
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "other.db")
				db := rawDB(t, path)
				if _, err := db.ExecContext(t.Context(), `CREATE TABLE recipes (name TEXT, steps TEXT);
INSERT INTO recipes VALUES ('bread', 'knead');`); err != nil {
					t.Fatal(err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				return path
			},
			want: store.ErrNotALedger,
		},
		"truncated ledger": {
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "ledger.db")
				s, err := sqlite.Open(t.Context(), path)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 50 {
					name := fmt.Sprintf("task-%02d", i)
					if err := s.UpsertTask(t.Context(), store.Task{Name: name, Argv: []string{"/bin/true"}, RegisteredAt: t0}); err != nil {
						t.Fatal(err)
					}
					res, err := s.Claim(t.Context(), store.ClaimRequest{Run: store.Run{Task: name, Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0}})
					if err != nil {
						t.Fatal(err)
					}
					if err := s.Finish(t.Context(), res.Run.ID, store.Outcome{Status: store.StatusSucceeded, EndedAt: t0}); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(path, 1000); err != nil {
					t.Fatal(err)
				}
				return path
			},
			want: nil, // any error, as long as it is one
		},
		"read-only directory": {
			setup: func(t *testing.T, dir string) string {
				ro := filepath.Join(dir, "ro")
				if err := os.Mkdir(ro, 0o500); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(ro, 0o700) })
				return filepath.Join(ro, "ledger.db")
			},
			root: true,
		},
		"directory to create under a read-only one": {
			setup: func(t *testing.T, dir string) string {
				ro := filepath.Join(dir, "ro")
				if err := os.Mkdir(ro, 0o500); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(ro, 0o700) })
				return filepath.Join(ro, "catchup", "ledger.db")
			},
			names: "catchup",
			root:  true,
		},
		"path is a directory": {
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "ledger.db")
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
				return path
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.root && os.Geteuid() == 0 {
				t.Skip("running as root: file permissions do not stop root")
			}
			path := tc.setup(t, t.TempDir())
			var (
				s   *sqlite.Ledger
				err error
			)
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("Open panicked: %v", p)
					}
				}()
				s, err = sqlite.Open(t.Context(), path)
			}()
			if err == nil {
				s.Close()
				t.Fatalf("Open(%s) succeeded", path)
			}
			t.Logf("error: %v", err)
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %q, want %v", err, tc.want)
			}
			names := tc.names
			if names == "" {
				names = path
			}
			if !strings.Contains(err.Error(), names) {
				t.Errorf("error %q does not name %s", err, names)
			}
		})
	}
}

// A ledger path may hold characters that mean something in a URI.
func TestOpenOddPath(t *testing.T) {
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
func TestOpenConcurrentFirstOpen(t *testing.T) {
	const rounds, procs = 20, 8
	for round := range rounds {
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

func writeFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
