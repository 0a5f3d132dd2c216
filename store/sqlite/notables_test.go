//go:build unix

package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// A SQLite file at the ledger's path without catchup's tables is never one
// catchup made (a new ledger appears whole, its tables in it): an older
// ledger whose WAL, holding its tables, was lost; a file another tool made;
// a database of something else. Every open refuses it in one line naming
// the file and the way out, and changes nothing in it: made a new, empty
// ledger, the operator's history and missed slots would vanish silently.
func TestOpenLedgerWithoutTablesRefused(t *testing.T) {
	opens := map[string]func(context.Context, string) (*sqlite.Ledger, error){
		"Open":         sqlite.Open,
		"OpenExisting": sqlite.OpenExisting,
	}
	files := map[string]struct {
		sql  string
		want []string // what the message must say, besides the path
	}{
		"header only": {
			sql:  `PRAGMA user_version = 0; VACUUM;`,
			want: []string{"no catchup tables", "remove it", "next run creates a new ledger"},
		},
		"lost WAL of an older ledger": {
			sql:  `PRAGMA journal_mode = WAL; PRAGMA user_version = 1;`,
			want: []string{"no catchup tables", "-wal", "remove it", "next run creates a new ledger"},
		},
		"database of something else": {
			sql:  `CREATE TABLE recipes (name TEXT, steps TEXT); INSERT INTO recipes VALUES ('bread', 'knead');`,
			want: []string{"other tables", "--db"},
		},
	}
	for open, openFn := range opens {
		for file, c := range files {
			t.Run(open+"/"+file, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "ledger.db")
				db := rawDB(t, path)
				if _, err := db.ExecContext(t.Context(), c.sql); err != nil {
					t.Fatal(err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				before, err := os.ReadFile(path)
				if err != nil || len(before) == 0 {
					t.Fatalf("no SQLite file to open (%d bytes, %v)", len(before), err)
				}
				os.Remove(path + "-wal")
				os.Remove(path + "-shm")

				s, err := openFn(t.Context(), path)
				if err == nil {
					s.Close()
					t.Fatalf("%s of a SQLite file without catchup's tables succeeded", open)
				}
				if !errors.Is(err, sqlite.ErrNotALedger) || errors.Is(err, store.ErrNoLedger) {
					t.Errorf("error %q: want ErrNotALedger, not ErrNoLedger", err)
				}
				msg := err.Error()
				for _, want := range append([]string{path}, c.want...) {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q does not say %q", msg, want)
					}
				}
				if strings.Contains(msg, "\n") {
					t.Errorf("error %q is more than one line", msg)
				}
				if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
					t.Errorf("the refused file was changed (%d bytes, was %d)", len(after), len(before))
				}
				for _, side := range []string{path + "-wal", path + "-shm"} {
					if _, err := os.Stat(side); err == nil {
						t.Errorf("%s left beside the refused file", side)
					}
				}
			})
		}
	}
}
