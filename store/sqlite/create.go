package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/store"
)

// errEmptyLedger is the fix for a ledger file cut to 0 bytes (a full disk,
// a bad restore, `: > file`). catchup never leaves one (createLedger makes
// a new ledger whole), so it is a lost ledger, refused like a corrupt one:
// taken for no ledger, a reader would say so and a writer would start a
// fresh ledger over it, the history and the missed slots gone silently.
func errEmptyLedger(path string) error {
	return fmt.Errorf("ledger %s: %w: it is empty (0 bytes); restore it from a backup "+
		"(docs/ledger.md, backing up and restoring) or remove it, with its -wal and -shm, "+
		"to start a new, empty ledger", path, ErrNotALedger)
}

// ensureLedger checks that the ledger file real (at the path given, path)
// is there and not empty, creating it when it is missing and mustExist is
// false. A missing file with mustExist is store.ErrNoLedger. Without
// mustExist (a writer), it first removes what creations killed midway left
// (removeLeftovers); a reader changes nothing.
func ensureLedger(ctx context.Context, path, real string, mustExist bool) error {
	if !mustExist {
		removeLeftovers(real)
	}
	fi, err := os.Stat(real)
	switch {
	case err == nil && fi.Size() == 0:
		return errEmptyLedger(path)
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("open ledger %s: %w", path, err)
	case mustExist:
		return fmt.Errorf("%w at %s", store.ErrNoLedger, path)
	}
	if err := ensureDir(filepath.Dir(real)); err != nil {
		return err
	}
	return createLedger(ctx, path, real)
}

// ensureDir creates the ledger's directory, 0700 whatever the umask, when
// it is missing.
func ensureDir(dir string) error {
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return cannotCreate(fmt.Sprintf("create ledger directory %s", dir), dir, dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("create ledger directory %s: %w", dir, err)
	}
	return nil
}

// createLedger makes a new ledger at real whole: it is created (0600, in
// WAL mode, with its schema) under a temporary name in the same directory,
// synced, then linked into place. A process killed meanwhile leaves at most
// a stray temporary file, which a later writer removes (removeLeftovers),
// never an empty ledger file, nor one without the tables, that every later
// open would refuse. link(2) never replaces a file: when another process
// created the ledger first, its ledger is kept and this one dropped.
func createLedger(ctx context.Context, path, real string) error {
	dir := filepath.Dir(real)
	f, err := createTemp(real)
	if err != nil {
		return cannotCreate(fmt.Sprintf("create ledger %s", path), real, dir, err)
	}
	tmp := f.Name()
	f.Close()
	defer func() {
		for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm", tmp + "-journal"} {
			os.Remove(p)
		}
	}()
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fmt.Errorf("create ledger %s: %w", path, err)
	}
	if err := initialise(ctx, path, tmp); err != nil {
		return err
	}
	if err := syncPath(tmp); err != nil {
		return fmt.Errorf("create ledger %s: %w", path, err)
	}
	if err := os.Link(tmp, real); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create ledger %s: %w", path, err)
	}
	if err := syncPath(dir); err != nil {
		return fmt.Errorf("create ledger %s: %w", path, err)
	}
	return nil
}

// initialise gives the new file tmp the ledger's schema, in WAL mode, and
// closes it: the close checkpoints the WAL into the file and deletes it.
func initialise(ctx context.Context, path, tmp string) error {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: tmp}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return fmt.Errorf("create ledger %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Ledger{db: db, path: path, real: tmp, creating: true}
	err = s.checkSchema(uncancelled(ctx))
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("create ledger %s: %w", path, cerr)
	}
	return err
}

// syncPath fsyncs a file or a directory.
func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
