package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// SQLite is the single-host ledger: one file, WAL journal, safe for many
// catchup processes at once.
//
// Durability: synchronous=FULL. In WAL mode that fsyncs the WAL on every
// commit, so a recorded outcome survives a power cut; with NORMAL the last
// commits could vanish after one, and a slot that did run would be replayed.
type SQLite struct {
	db   *sql.DB
	path string
}

// busyTimeoutMS bounds how long a write waits for another process's write
// transaction. Writes are tiny, so this is only reached under heavy load.
const busyTimeoutMS = 30000

// OpenSQLite opens (creating if needed) the ledger at path. A new directory
// is created 0700 and a new file 0600, whatever the umask.
//
// A ledger file (or its -wal, -shm) that another user planted is refused:
// see trustLedgerFiles. The file is opened at its real path.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	real, err := trustLedgerFiles(path, os.Geteuid())
	if err != nil {
		return nil, err
	}
	if err := ensureFile(real); err != nil {
		return nil, err
	}
	if _, err := trustLedgerFiles(real, os.Geteuid()); err != nil {
		return nil, err // planted in the meantime
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	// Immediate transactions take the write lock at BEGIN: a deferred one
	// that upgrades later fails with SQLITE_BUSY under concurrent writers
	// instead of waiting.
	q.Set("_txlock", "immediate")
	// The DSN is a URI: escape the path, or a '?', '#' or '%' in it would
	// make SQLite open (and create) some other file than the one above.
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: real}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	// A CLI process does one thing at a time; one connection keeps the
	// pragmas applied once.
	db.SetMaxOpenConns(1)
	s := &SQLite{db: db, path: path}
	// Turning a new file to WAL takes an exclusive lock without SQLite's busy
	// handler: when processes create the ledger at once, all but one get
	// SQLITE_BUSY straight away. Retry as long as a busy write would wait.
	deadline := time.Now().Add(busyTimeoutMS * time.Millisecond)
	for {
		err = s.checkSchema(ctx)
		if !errors.Is(err, ErrLedgerTooBusy) || ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// ensureFile creates the ledger's directory (0700) and file (0600) when
// they are missing, so that SQLite never creates them with umask modes.
func ensureFile(path string) error {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create ledger directory %s: %w", dir, err)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("create ledger directory %s: %w", dir, err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		f.Close()
		return os.Chmod(path, 0o600)
	case errors.Is(err, os.ErrExist):
		return nil
	default:
		return fmt.Errorf("create ledger %s: %w", path, err)
	}
}

func (s *SQLite) checkSchema(ctx context.Context) error {
	ms, err := loadMigrations("sqlite")
	if err != nil {
		return err
	}
	var current int
	var hasTable int
	// The common case, an up-to-date ledger, costs this one query.
	err = s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current)
	switch {
	case err == nil:
		hasTable = 1
	case strings.Contains(err.Error(), "no such table"):
	default:
		return s.wrap("read ledger", err)
	}
	if hasTable == 1 {
		if current == latestVersion(ms) {
			return nil
		}
	} else {
		// Another process may be creating this ledger right now: look again
		// and create schema_version in one write transaction, so that its
		// half-made schema is not taken for a foreign database.
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return s.wrap("initialise ledger", err)
		}
		defer tx.Rollback()
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE type='table' AND name='schema_version') FROM sqlite_master`).Scan(&n, &hasTable); err != nil {
			return s.wrap("read ledger", err)
		}
		switch {
		case hasTable == 1:
			if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
				return s.wrap("read ledger", err)
			}
		case n > 0:
			return fmt.Errorf("ledger %s: %w", s.path, ErrNotALedger)
		default:
			if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_version (version INTEGER PRIMARY KEY) STRICT`); err != nil {
				return s.wrap("initialise ledger", err)
			}
		}
		if err := tx.Commit(); err != nil {
			return s.wrap("initialise ledger", err)
		}
		if current == latestVersion(ms) {
			return nil
		}
	}
	if err := migrate(ctx, s.db, ms, current); err != nil {
		return s.wrap("migrate ledger", err)
	}
	return nil
}

// Path is the ledger file.
func (s *SQLite) Path() string { return s.path }

// Close closes the ledger.
func (s *SQLite) Close() error { return s.db.Close() }

// wrap names the ledger file in every error and turns SQLite's result codes
// into the package's errors where a caller acts on them.
func (s *SQLite) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
			return fmt.Errorf("%s %s: %w", op, s.path, ErrNotALedger)
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			return fmt.Errorf("%s %s: %w", op, s.path, ErrLedgerTooBusy)
		}
	}
	return fmt.Errorf("%s %s: %w", op, s.path, err)
}
