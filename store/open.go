package store

import (
	"context"
	"strings"
)

// IsPostgres reports whether location names a PostgreSQL ledger (a
// postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(location string) bool {
	l := strings.ToLower(location)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// Open opens the ledger at location: PostgreSQL for a postgres:// or
// postgresql:// URL, else the SQLite file at that path.
func Open(ctx context.Context, location string) (Store, error) {
	if IsPostgres(location) {
		p, err := OpenPostgres(ctx, location)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	s, err := OpenSQLite(ctx, location)
	if err != nil {
		return nil, err
	}
	return s, nil
}
