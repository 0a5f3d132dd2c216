// Package first runs the first half of the CLI scenarios of
// testdata/script on a shared PostgreSQL ledger, each script in its own
// schema; package second runs the other half. They have no code of their
// own: each is a test binary apart from the root package's (which runs
// the same scenarios on SQLite), so that each stays well inside go test's
// ten-minute limit per package, and they run side by side. Run one
// scenario on PostgreSQL with
//
//	go test ./pgscripts/... -run 'TestScriptsPostgres/NAME$'
package first
