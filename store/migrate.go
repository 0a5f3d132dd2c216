package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations
var migrationFS embed.FS

// migration is one embedded SQL file; files are named NNNN_title.sql and
// applied in order, each in its own transaction with its version row.
type migration struct {
	version int
	sql     string
}

func loadMigrations(dialect string) ([]migration, error) {
	dir := "migrations/" + dialect
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, fmt.Errorf("read embedded migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok {
			continue
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: bad version: %w", e.Name(), err)
		}
		body, err := fs.ReadFile(migrationFS, dir+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// latestVersion is the schema version this binary writes.
func latestVersion(ms []migration) int {
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// checkNotNewer refuses a schema newer than the embedded migrations.
func checkNotNewer(ms []migration, current int) error {
	if want := latestVersion(ms); current > want {
		return fmt.Errorf("%w: schema version %d, this catchup knows up to %d; upgrade catchup", ErrSchemaTooNew, current, want)
	}
	return nil
}

// migrate brings the schema to the latest version. It refuses, touching
// nothing, a ledger whose schema is newer than this binary knows.
func migrate(ctx context.Context, db *sql.DB, ms []migration, current int) error {
	if err := checkNotNewer(ms, current); err != nil {
		return err
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		// Re-read inside the write transaction: another process may have
		// migrated since we looked.
		var now int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&now); err != nil {
			tx.Rollback()
			return err
		}
		if now >= m.version {
			tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("apply migration %d: %w", m.version, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES (?)`, m.version); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("apply migration %d: %w", m.version, err)
		}
	}
	return nil
}
