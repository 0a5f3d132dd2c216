package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckWALOwner: with a WAL beside it, only a SQLite file in WAL mode
// passes for the ledger; without one, or for an empty file, SQLite decides.
func TestCheckWALOwner(t *testing.T) {
	walMode := make([]byte, 4096)
	copy(walMode, "SQLite format 3\x00")
	walMode[18], walMode[19] = 2, 2
	rollback := append([]byte(nil), walMode...)
	rollback[18], rollback[19] = 1, 1
	cases := map[string]struct {
		file, wal []byte
		refused   bool
	}{
		"a ledger in WAL mode":      {file: walMode, wal: []byte("frames")},
		"text with a WAL beside it": {file: []byte("not a catchup ledger, just some text\n"), wal: []byte("frames"), refused: true},
		"a rollback-mode database":  {file: rollback, wal: []byte("frames"), refused: true},
		"text without a WAL":        {file: []byte("not a ledger\n")},
		"text with an empty WAL":    {file: []byte("not a ledger\n"), wal: []byte{}},
		"an empty file with a WAL":  {file: []byte{}, wal: []byte("frames")},
		"a short header with a WAL": {file: walMode[:50], wal: []byte("frames"), refused: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "catchup.db")
			if err := os.WriteFile(path, c.file, 0o600); err != nil {
				t.Fatal(err)
			}
			if c.wal != nil {
				if err := os.WriteFile(path+"-wal", c.wal, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := checkWALOwner(path, path)
			if got := errors.Is(err, ErrNotALedger); got != c.refused {
				t.Fatalf("refused = %v (%v), want %v", got, err, c.refused)
			}
		})
	}
}
