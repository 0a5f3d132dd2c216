package cmd

import "testing"

func TestLedgerIdentity(t *testing.T) {
	same := []string{
		"postgres://catchup:old@db:5432/ledger?sslmode=require&options=-csearch_path%3Dfleet",
		"postgres://catchup:rotated@db/ledger?options=-csearch_path%3Dfleet&sslmode=require",
		"postgresql://other@db:5432/ledger?options=-csearch_path%3Dfleet",
	}
	for _, dsn := range same[1:] {
		if lockDirKey(dsn) != lockDirKey(same[0]) {
			t.Errorf("%q and %q are one ledger: %q vs %q", dsn, same[0], lockDirKey(dsn), lockDirKey(same[0]))
		}
	}
	for name, dsn := range map[string]string{
		"other schema":   "postgres://catchup@db:5432/ledger?options=-csearch_path%3Dother",
		"other database": "postgres://catchup@db:5432/other?options=-csearch_path%3Dfleet",
		"other server":   "postgres://catchup@db2:5432/ledger?options=-csearch_path%3Dfleet",
	} {
		if lockDirKey(dsn) == lockDirKey(same[0]) {
			t.Errorf("%s: %q taken for the same ledger", name, dsn)
		}
	}
}
