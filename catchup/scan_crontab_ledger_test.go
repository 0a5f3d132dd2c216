package catchup

import "testing"

// TestSameLedger: a crontab line's --db names this scan's ledger when it is
// the same file (a relative path is the line's, from the user's home), or
// the same PostgreSQL server, database and schema, however spelt: a
// password kept out of the URL (PGPASSFILE), another user, the parameters
// in another order. Taken for another ledger, the line is never replayed.
func TestSameLedger(t *testing.T) {
	t.Parallel()
	const scan = "postgres://catchup:SECRET@db:5432/ledger?sslmode=disable&options=-csearch_path%3Dfleet"
	tests := map[string]struct {
		line, scan string
		same       bool
	}{
		"the same URL":         {line: scan, scan: scan, same: true},
		"no password":          {line: "postgres://catchup@db:5432/ledger?sslmode=disable&options=-csearch_path%3Dfleet", scan: scan, same: true},
		"parameters reordered": {line: "postgres://catchup@db/ledger?options=-csearch_path%3Dfleet&sslmode=disable", scan: scan, same: true},
		"another user":         {line: "postgresql://alice@db:5432/ledger?options=-csearch_path%3Dfleet", scan: scan, same: true},
		"another schema":       {line: "postgres://catchup@db:5432/ledger?options=-csearch_path%3Dother", scan: scan},
		"another database":     {line: "postgres://catchup@db:5432/other?options=-csearch_path%3Dfleet", scan: scan},
		"another server":       {line: "postgres://catchup@db2:5432/ledger?options=-csearch_path%3Dfleet", scan: scan},
		"-c search_path, another schema": {line: "postgres://catchup@db:5432/ledger?options=-c%20search_path%3Da",
			scan: "postgres://catchup@db:5432/ledger?options=-c%20search_path%3Db"},
		"-c search_path, the same schema": {line: "postgres://catchup@db:5432/ledger?options=-c%20search_path%3Dfleet",
			scan: scan, same: true},
		"--search_path against none":   {line: "postgres://catchup@db:5432/ledger?options=--search_path%3Da", scan: "postgres://catchup@db:5432/ledger"},
		"no database: the user's own":  {line: "postgres://alice@db", scan: "postgres://bob@db"},
		"no database, the user's name": {line: "postgres://alice@db", scan: "postgres://carol@db/alice", same: true},
		"another socket directory":     {line: "postgres://u@/ledger?host=/run/pg1", scan: "postgres://u@/ledger?host=/run/pg2"},
		"a DSN that does not parse":    {line: "postgres://u@db:notaport/ledger", scan: "postgres://u@db:notaport/ledger", same: true},
		"a file against a URL":         {line: "/var/lib/catchup/catchup.db", scan: scan},
		"the same file":                {line: "/var/lib/catchup/catchup.db", scan: "/var/lib/catchup/catchup.db", same: true},
		"a relative file":              {line: "ledger.db", scan: "/home/alice/ledger.db", same: true},
		"another file":                 {line: "/var/lib/catchup/other.db", scan: "/var/lib/catchup/catchup.db"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := sameLedger(tc.line, tc.scan, "/home/alice"); got != tc.same {
				t.Errorf("sameLedger(%q, %q) = %v, want %v", tc.line, tc.scan, got, tc.same)
			}
		})
	}
}
