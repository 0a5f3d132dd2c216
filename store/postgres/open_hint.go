package postgres

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/catchup/catchup/store"
)

// withOpenFix adds the fix to an error of the ledger's first connection
// (wrapped: err as wrap named it) for the causes an operator meets first:
// no server at the DSN's address, a database or a role that does not
// exist, a password the server refused. Other errors are returned as they
// are. The fix names only what the DSN names (server, database, role),
// never its password.
func (p *Ledger) withOpenFix(wrapped, err error) error {
	var pe *pgconn.PgError
	var fix string
	switch {
	case errors.As(err, &pe) && pe.Code == "3D000" && p.database != "":
		fix = fmt.Sprintf("create it (createdb %s), or name an existing database in --db (or CATCHUP_DB)", shellWord(p.database))
	case errors.As(err, &pe) && pe.Code == "28000" && strings.HasPrefix(pe.Message, "role ") && p.user != "":
		fix = fmt.Sprintf("create the role (CREATE ROLE %s LOGIN), or name an existing one in --db (or CATCHUP_DB)", ident(p.user))
	case errors.As(err, &pe) && pe.Code == "28P01":
		fix = "check the password the server expects of this role (the URL's, CATCHUP_DB_FILE's or PGPASSFILE's)"
	case errors.Is(wrapped, store.ErrLedgerUnreachable) && p.server != "":
		fix = fmt.Sprintf("start PostgreSQL at %s, or point --db (or CATCHUP_DB) at the server that holds the ledger", p.server)
	default:
		return wrapped
	}
	return &redactedError{msg: wrapped.Error() + "; fix: " + fix, err: wrapped}
}

// serverName is where a connection goes, as the fix names it: HOST:PORT,
// or a Unix socket's directory with its port.
func serverName(cfg *pgconn.Config) string {
	if cfg.Host == "" {
		return ""
	}
	port := strconv.Itoa(int(cfg.Port))
	if strings.HasPrefix(cfg.Host, "/") {
		return "the socket in " + cfg.Host + " (port " + port + ")"
	}
	return net.JoinHostPort(cfg.Host, port)
}

// shellWord is name as one word of a shell command: as it is when it is
// plain, else single-quoted.
func shellWord(name string) string {
	if plainIdent().MatchString(name) {
		return name
	}
	return "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
}
