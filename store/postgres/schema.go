package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"time"

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
func (p *Ledger) checkSchema(ctx context.Context) error {
	latest, err := backend.LatestMigration(migrations())
	if err != nil {
		return err
	}
	// The common case, an up-to-date ledger, costs two reads and no write,
	// and reads no migration. The first reads the server's clock too
	// (serverClock).
	var exists bool
	var at time.Time
	err = p.pool.QueryRow(ctx,
		`SELECT to_regclass(quote_ident(current_schema()) || '.schema_version') IS NOT NULL, clock_timestamp()`).Scan(&exists, &at)
	if err != nil {
		return p.withOpenFix(p.wrap("open ledger", err), err)
	}
	p.clock.saw(at)
	if !exists && p.mustExist {
		return fmt.Errorf("%w at %s", store.ErrNoLedger, p.where)
	}
	var current int
	if exists {
		if err := p.pool.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
			return p.wrap("read ledger", err)
		}
		if current == latest {
			return nil
		}
	}
	ms, err := backend.LoadMigrations(migrations())
	if err != nil {
		return err
	}
	if exists {
		if err := backend.CheckNotNewer(ms, current); err != nil {
			return p.wrap("open ledger", err)
		}
	}
	if err := p.migrate(ctx, ms); err != nil {
		return p.wrap("migrate ledger", p.withSchemaFix(ctx, err))
	}
	return nil
}

// migrate applies the missing migrations in one transaction, under a lock
// that serialises the hosts that open a new ledger at the same time.
func (p *Ledger) migrate(ctx context.Context, ms []backend.Migration) error {
	tx, err := p.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('catchup:migrate:' || current_schema(), 0))`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY)`); err != nil {
		return err
	}
	var current int
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
		return err
	}
	// Refusing rolls back: not even schema_version is left behind.
	if err := backend.CheckNotNewer(ms, current); err != nil {
		return err
	}
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("apply migration %d: %w", m.Version, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_version (version) VALUES ($1)`, m.Version); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}
