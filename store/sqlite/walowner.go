package sqlite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// checkWALOwner refuses a ledger file that is not a SQLite database in WAL
// mode while a WAL lies beside it. The WAL stays at rest (keepwal.go), and
// SQLite reads any non-empty file through the WAL beside it: a file put in
// the ledger's place (garbage, text, a database in another mode) would pass
// for the old ledger, and writes would go into the old ledger's WAL. An
// empty file is left to SQLite, which drops the WAL of an empty database.
func checkWALOwner(path, real string) error {
	if fi, err := os.Stat(real + "-wal"); err != nil || fi.Size() == 0 {
		return nil // no WAL to misread the file through
	}
	f, err := os.Open(real)
	if err != nil {
		return nil // SQLite reports it
	}
	defer f.Close()
	var head [100]byte
	n, err := io.ReadFull(f, head[:])
	if n == 0 && errors.Is(err, io.EOF) {
		return nil
	}
	// The header: the magic string, then at offsets 18 and 19 the write
	// and read versions, 2 in WAL mode.
	if n < len(head) || !bytes.HasPrefix(head[:], []byte("SQLite format 3\x00")) || head[18] != 2 || head[19] != 2 {
		return fmt.Errorf("ledger %s: %w, though a -wal lies beside it: if the file was replaced, "+
			"delete %s-wal and %s-shm (docs/ledger.md, backing up and restoring)", path, ErrNotALedger, path, path)
	}
	return nil
}
