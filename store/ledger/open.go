// Package ledger opens the ledger a store.Location names, with the backend
// of its kind. It is the one package that knows every backend: a new one
// is a sub-package of store that implements store.Store, and a case here.
package ledger

import (
	"context"
	"fmt"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/postgres"
	"github.com/catchup/catchup/store/sqlite"
)

// Open opens (creating it if needed) the ledger at loc and brings its
// schema up to date.
func Open(ctx context.Context, loc store.Location) (store.Store, error) {
	switch loc.Kind {
	case store.SQLite:
		s, err := sqlite.Open(ctx, loc.Path)
		if err != nil {
			return nil, err
		}
		return s, nil
	case store.Postgres:
		p, err := postgres.Open(ctx, loc.DSN)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, fmt.Errorf("open ledger: unknown kind %q", loc.Kind)
}

// OpenExisting opens the ledger at loc for a command that only reads it:
// a ledger that is not there (a missing SQLite file, a PostgreSQL schema
// without one) is store.ErrNoLedger, never created.
func OpenExisting(ctx context.Context, loc store.Location) (store.Store, error) {
	switch loc.Kind {
	case store.SQLite:
		s, err := sqlite.OpenExisting(ctx, loc.Path)
		if err != nil {
			return nil, err
		}
		return s, nil
	case store.Postgres:
		p, err := postgres.OpenExisting(ctx, loc.DSN)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	return Open(ctx, loc)
}

// OpenReader is OpenExisting for a command that only reads the ledger: a
// SQLite ledger this user cannot write (a copy on a read-only mount, a full
// disk) is read as it is, where a command that changes it is refused.
func OpenReader(ctx context.Context, loc store.Location) (store.Store, error) {
	if loc.Kind == store.SQLite {
		s, err := sqlite.OpenReader(ctx, loc.Path)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return OpenExisting(ctx, loc)
}
