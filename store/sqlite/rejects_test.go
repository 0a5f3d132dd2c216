//go:build unix

package sqlite_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

func TestOpenSQLiteRejects(t *testing.T) {
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
			want: sqlite.ErrNotALedger,
		},
		"text file": {
			setup: func(t *testing.T, dir string) string {
				return writeFile(t, filepath.Join(dir, "ledger.db"), []byte("0 * * * * /usr/bin/backup\n"))
			},
			want: sqlite.ErrNotALedger,
		},
		"long text file": {
			setup: func(t *testing.T, dir string) string {
				return writeFile(t, filepath.Join(dir, "ledger.db"), bytes.Repeat([]byte("not a database\n"), 1000))
			},
			want: sqlite.ErrNotALedger,
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
			want: sqlite.ErrNotALedger,
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
			want: store.ErrLedgerIsDir,
		},
		"path is a symlink to a directory": {
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "ledger.db")
				if err := os.Mkdir(filepath.Join(dir, "real"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("real", path); err != nil {
					t.Fatal(err)
				}
				return path
			},
			want: store.ErrLedgerIsDir,
		},
		"path ends in a slash": {
			setup: func(t *testing.T, dir string) string {
				return filepath.Join(dir, "new") + "/"
			},
			want: store.ErrLedgerIsDir,
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
