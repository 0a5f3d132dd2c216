// Package e2e holds the end-to-end tests: real catchup processes (this
// package's test binary, re-run as the catchup command), real signals, real
// SQLite files and a real PostgreSQL server. They model the faults catchup
// promises to survive: power cuts, killed processes, load at the top of the
// hour, broken ledgers, a fleet of hosts sharing a ledger, the ledger going
// away. The CLI scenarios (testdata/script) are run by the root package.
//
// The PostgreSQL tests need CATCHUP_TEST_POSTGRES_DSN; without it they skip,
// and TestMain says so in one line.
package e2e
