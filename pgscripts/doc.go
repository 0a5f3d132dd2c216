// Package pgscripts runs the CLI scenarios of testdata/script on a shared
// PostgreSQL ledger, each script in its own schema. It has no code of its
// own: it is a test binary apart from the root package's (which runs the
// same scenarios on SQLite), so that each stays well inside go test's
// ten-minute limit per package and the two run side by side.
package pgscripts
