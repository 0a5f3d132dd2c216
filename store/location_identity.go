package store

import (
	"net/url"

	"github.com/jackc/pgx/v5/pgxpool"
)

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
	cfg, err := parseNaming(l.DSN)
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

// fileParams are the URL parameters the driver reads a file for when it
// parses a URL (pgconn.ParseConfig): a CA, a client certificate and key,
// a password file, a service file.
var fileParams = []string{"sslrootcert", "sslcert", "sslkey", "passfile", "servicefile"}

// parseNaming is pgxpool.ParseConfig of dsn for naming its ledger
// (ParseLocation's check, Identity, Redacted), which opens no file the URL
// names: those parameters are left out, and what they would set (TLS,
// a password) is no part of a ledger's name. A root scan names the ledger
// of every other user's crontab line this way: a FIFO of theirs named as
// its sslrootcert held root's scan in open(2) forever, and /dev/zero
// filled its memory. Connecting (store/postgres) still reads them.
func parseNaming(dsn string) (*pgxpool.Config, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return pgxpool.ParseConfig(dsn) // its error: the driver parses the URL first, reading nothing
	}
	q := u.Query()
	found := false
	for _, k := range fileParams {
		if q.Has(k) {
			q.Del(k)
			found = true
		}
	}
	if found {
		u.RawQuery = q.Encode()
		dsn = u.String()
	}
	return pgxpool.ParseConfig(dsn)
}
