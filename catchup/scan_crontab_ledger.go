package catchup

import (
	"path/filepath"
	"strings"

	"github.com/catchup/catchup/store"
)

// sameLedger compares ledger locations: PostgreSQL ledgers by server,
// database and schema (store.Location.Identity), not by their URLs'
// spelling; a
// relative file path is relative to dir (cron runs the line in the user's
// home).
func sameLedger(line, scan, dir string) bool {
	if strings.Contains(line, "://") || strings.Contains(scan, "://") {
		return line == scan || samePostgres(line, scan)
	}
	if !filepath.IsAbs(line) {
		line = filepath.Join(dir, line)
	}
	abs, err := filepath.Abs(scan)
	if err != nil {
		return false
	}
	return filepath.Clean(line) == abs
}

// samePostgres reports whether two PostgreSQL locations name one ledger
// (store.Location.Identity).
func samePostgres(a, b string) bool {
	la, err1 := store.ParseLocation(a)
	lb, err2 := store.ParseLocation(b)
	if err1 != nil || err2 != nil || la.Kind != store.Postgres || lb.Kind != store.Postgres {
		return false
	}
	id := la.Identity()
	return id != "" && id == lb.Identity()
}

// SameLedger reports whether a crontab line's ledger location (line; a
// relative path from dir, the line's home) names the ledger at location
// ledger: one file, or one PostgreSQL database and schema however spelled.
func SameLedger(line, ledger, dir string) bool { return sameLedger(line, ledger, dir) }
