package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// withSchemaFix adds the fix to an error of the first use of a ledger,
// whose migrations create its tables in the DSN's schema: a schema that
// does not exist (a search_path typo, or CREATE SCHEMA forgotten: the
// server says only "no schema has been selected to create in") or one the
// role may not create in. Other errors are returned as they are.
func (p *Ledger) withSchemaFix(ctx context.Context, err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch {
	case pe.Code == "3F000":
		var path string
		if p.pool.QueryRow(ctx, `SELECT current_setting('search_path')`).Scan(&path) != nil {
			return err
		}
		s := firstSchema(path)
		return fmt.Errorf("%w; fix: schema %s does not exist (search_path %s): create it (CREATE SCHEMA %s), or correct search_path in the ledger's URL", err, s, path, ident(s))
	case pe.Code == "42501" && strings.HasPrefix(pe.Message, "permission denied for schema"):
		var schema, role string
		if p.pool.QueryRow(ctx, `SELECT current_schema(), current_user`).Scan(&schema, &role) != nil {
			return err
		}
		return fmt.Errorf("%w; fix: the ledger's first use creates its tables, so its role needs CREATE on the schema (GRANT CREATE ON SCHEMA %s TO %s), or run that first use as the schema's owner", err, ident(schema), ident(role))
	}
	return err
}

// firstSchema is the first schema a search_path names ("$user" is the
// role's own, which has no name of its own here: skipped), unquoted.
func firstSchema(path string) string {
	for _, s := range strings.Split(path, ",") {
		s = strings.TrimSpace(s)
		if s == `"$user"` || s == "$user" || s == "" {
			continue
		}
		if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
			s = strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
		}
		return s
	}
	return path
}

// plainIdent is compiled at its first use, not at every process's start
// (docs/performance.md).
var plainIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_][a-z0-9_]*$`) })

// ident is name as SQL reads it: as it is when plain, else quoted.
func ident(name string) string {
	if plainIdent().MatchString(name) {
		return name
	}
	return pgx.Identifier{name}.Sanitize()
}
