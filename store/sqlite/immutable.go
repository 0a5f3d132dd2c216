package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"net/url"
	"os"
)

// openImmutable opens, for a reader, a ledger in WAL mode that it cannot
// write and that has no -wal with frames beside it (a copy on a read-only
// file system or in a read-only directory, a full disk): SQLite reads a
// WAL-mode file only through its -wal and -shm, and cannot create them.
// With no frames, every committed run is in the file itself, so it is read
// as immutable (no locks, no -wal, no -shm; SQLite assumes nothing changes
// it meanwhile, which no writer can do without writing the -wal first). q
// is the DSN's query of the first open. It returns the ledger's new
// handle, now s.db; or nil, s.db unchanged, when the -wal has frames
// (reading the file alone would miss their runs) or the file cannot be
// read this way either: the first open's error then stands.
func (s *Ledger) openImmutable(ctx context.Context, q url.Values) *sql.DB {
	if !walEmpty(s.real + "-wal") {
		return nil
	}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	db, err := sql.Open("sqlite", ledgerDSN(s.real, q))
	if err != nil {
		return nil
	}
	db.SetMaxOpenConns(1)
	first := s.db
	s.db = db
	if err := s.checkSchema(uncancelled(ctx)); err != nil {
		db.Close()
		s.db = first
		return nil
	}
	return db
}

// walEmpty reports whether the -wal at path holds no frame: it is not
// there, or is an empty file (SQLite may have just made one, on a full
// disk, before it failed to grow the -shm).
func walEmpty(path string) bool {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && fi.Mode().IsRegular() && fi.Size() == 0
}
