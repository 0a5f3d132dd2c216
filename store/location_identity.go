package store

import (
	"net/url"
	"strings"
)

// Identity is what names a PostgreSQL ledger: server, database and
// schema (search_path), not the spelling of its DSN. A rotated password or
// reordered parameters must not give the same ledger another lock directory.
func Identity(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	schema := q.Get("search_path")
	for _, o := range strings.Fields(q.Get("options")) {
		if v, ok := strings.CutPrefix(o, "-csearch_path="); ok {
			schema = v
		}
	}
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	return host + ":" + port + "/" + strings.TrimPrefix(u.Path, "/") + "?schema=" + schema
}
