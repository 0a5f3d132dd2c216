package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"github.com/catchup/catchup/store"
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
	ms, err := backend.LoadMigrations(migrations())
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
		if current == backend.LatestVersion(ms) {
			return nil
		}
	} else {
		if s.mustExist {
			// A SQLite file without the tables: never made a ledger, or
			// one whose tables were still only in its WAL, lost since.
			return fmt.Errorf("%w at %s: the file has no catchup tables (copied or restored without its -wal?)", store.ErrNoLedger, s.path)
		}
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
		if current == backend.LatestVersion(ms) {
			return nil
		}
	}
	if err := migrate(ctx, s.db, ms, current); err != nil {
		return s.wrap("migrate ledger", err)
	}
	return nil
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
