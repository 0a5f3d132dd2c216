package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"github.com/catchup/catchup/store/internal/backend"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations is the directory of this backend's migrations.
func migrations() fs.FS {
	sub, err := fs.Sub(migrationFS, "migrations")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// checkSchema creates the schema of a new ledger, or migrates an older one.
func (s *Ledger) checkSchema(ctx context.Context) error {
	latest, err := backend.LatestMigration(migrations())
	if err != nil {
		return err
	}
	// The common case, an up-to-date ledger, costs this query and the
	// pragma below (a no-op on a ledger in WAL mode), and reads no
	// migration.
	var current int
	err = s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current)
	noTable := err != nil && strings.Contains(err.Error(), "no such table")
	if err != nil && !noTable {
		return s.wrap("read ledger", err)
	}
	if noTable {
		if !s.creating {
			return s.notALedger(ctx)
		}
		// A new ledger, made under its temporary name: no other process
		// opens it (createLedger).
		if _, err := s.db.ExecContext(ctx, `CREATE TABLE schema_version (version INTEGER PRIMARY KEY) STRICT`); err != nil {
			return s.wrap("initialise ledger", err)
		}
	}
	// Only a file found to be a ledger is turned to WAL mode: a refused
	// one is left as it was.
	if _, err := s.db.ExecContext(ctx, `PRAGMA journal_mode = WAL`); err != nil && !(s.reader && cannotWriteCode(err)) {
		return s.wrap("open ledger", err)
	}
	// A reader of a ledger it cannot write (a read-only file or file
	// system, a full disk) reads it in the mode it is in: a copy that
	// `catchup backup` made is in rollback mode, and turning it to WAL is a
	// write. The next writer turns it.
	if current == latest {
		return nil
	}
	ms, err := backend.LoadMigrations(migrations())
	if err != nil {
		return err
	}
	if err := migrate(ctx, s.db, ms, current); err != nil {
		if s.reader && current >= readsUnmigratedFrom && current < latest && cannotWriteCode(err) {
			return nil // read as it is, like a current ledger it cannot write; the next writer migrates it
		}
		return s.wrap("migrate ledger", err)
	}
	return nil
}

// readsUnmigratedFrom is the oldest schema version this catchup's readers
// read as it is when they cannot write it (a read-only file, directory or
// mount, a full disk): version 10 changed only the condition of an index
// (runs_task_failure_end), which a query reads the same rows without. A
// migration that changes a table or a column a reader reads raises it.
const readsUnmigratedFrom = 9

// notALedger is the refusal of a SQLite file without catchup's tables.
// catchup never makes one (a new ledger appears whole, its tables in it:
// createLedger), so it is an older ledger whose WAL, holding its tables,
// was lost, or a file something else made: made a new, empty ledger, the
// history and the missed slots it should hold would vanish silently.
func (s *Ledger) notALedger(ctx context.Context) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
		return s.wrap("read ledger", err)
	}
	if n > 0 {
		return fmt.Errorf("ledger %s: %w: it holds other tables (a database of something else); "+
			"if --db, CATCHUP_DB or CATCHUP_STATE_DIR names the wrong file, correct it, "+
			"or else move the file away, and the next run creates a new ledger", s.path, ErrNotALedger)
	}
	return fmt.Errorf("ledger %s: %w: it has no catchup tables (an older ledger copied or restored "+
		"without its -wal, or a file another tool made); restore it from a backup (docs/ledger.md, "+
		"backing up and restoring) or, if it holds nothing you need, remove it, with its -wal and -shm, "+
		"and the next run creates a new ledger", s.path, ErrNotALedger)
}

// migrate brings the schema to the latest version. It refuses, touching
// nothing, a ledger whose schema is newer than this binary knows.
func migrate(ctx context.Context, db *sql.DB, ms []backend.Migration, current int) error {
	if err := backend.CheckNotNewer(ms, current); err != nil {
		return err
	}
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		if err := apply(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

// apply applies one migration in its own transaction, with its version
// row, unless another process got there first.
func apply(ctx context.Context, db *sql.DB, m backend.Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Re-read inside the write transaction: another process may have
	// migrated since we looked.
	var now int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&now); err != nil {
		return err
	}
	if now >= m.Version {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("apply migration %d: %w", m.Version, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES (?)`, m.Version); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("apply migration %d: %w", m.Version, err)
	}
	return nil
}
