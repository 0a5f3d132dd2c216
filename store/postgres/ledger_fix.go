package postgres

import (
	"errors"
	"strings"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5/pgconn"
)

// fixOf is the fix, as "; fix: ...", of an error the server gave a
// statement of a ledger that was fine when opened (its tables made or
// checked), for the faults that only an operator mends; "" for any other.
// The role lacks a privilege on one of the ledger's tables or sequences (a
// DBA granted on some tables, or before a migration added one; the server
// said only "permission denied for table slots"). The ledger's tables are
// gone (its schema dropped or emptied under a running daemon, which said
// at each fire `relation "tasks" does not exist` and that a scan would
// replay the slot): they come back only from a backup, or empty.
func (p *Ledger) fixOf(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return ""
	}
	s, r := ident(p.schema), ident(p.role)
	switch {
	case pe.Code == "42501" && (strings.HasPrefix(pe.Message, "permission denied for table") ||
		strings.HasPrefix(pe.Message, "permission denied for sequence")):
		return "; fix: grant the ledger's role every row privilege on its tables and sequences (as the schema's owner): " +
			"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + s + " TO " + r +
			"; GRANT USAGE ON ALL SEQUENCES IN SCHEMA " + s + " TO " + r
	case pe.Code == "42P01":
		return "; fix: the ledger's tables are gone from schema " + s + " (dropped while catchup had it open): " +
			"restore the ledger from a backup (docs/ledger.md), or restart catchup, which makes them anew, empty " +
			"(the runs they held are lost: their slots are neither missed nor replayed)"
	}
	return ""
}

// dsnSchema is the schema a DSN's parameters put the ledger in, unquoted:
// the first of its search_path ("public" when it sets none).
func dsnSchema(params map[string]string) string {
	if s := firstSchema(store.SearchPath(params)); s != "" && s != `"$user"` && s != "$user" {
		return s
	}
	return "public"
}
