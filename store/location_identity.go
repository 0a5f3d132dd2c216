package store

import "github.com/jackc/pgx/v5/pgxpool"

// Identity names the ledger at l: a SQLite ledger by its path; a
// PostgreSQL ledger by server, database and schema (as Redacted), the
// database being the user's name when the URL names none, as the server
// reads it. Two locations with one identity are one ledger, however their
// URLs are spelt (another user of the same database, a password kept out
// of the URL, parameters in another order); "" for a URL that does not
// parse, which is no ledger.
func (l Location) Identity() string {
	if l.Kind != Postgres {
		return l.Path
	}
	cfg, err := pgxpool.ParseConfig(l.DSN)
	if err != nil {
		return ""
	}
	c := cfg.ConnConfig
	db := c.Database
	if db == "" {
		db = c.User
	}
	return pgName(c.Host, c.Port, db, c.RuntimeParams)
}
