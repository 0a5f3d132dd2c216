package scripttest

import (
	"context"
	"database/sql"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite" // the "sqlite" driver, as the ledger's
)

// cmdSQL runs SQL statements on a ledger, a SQLite file or a PostgreSQL
// DSN (as $CATCHUP_DB holds either), with the engines catchup itself links:
// a script needs neither the sqlite3 nor the psql command.
//
//	sql $CATCHUP_DB 'UPDATE tasks SET schedule = ''0 2 * * 7-1'''
//	sql other.db 'CREATE TABLE recipes (name TEXT)'
func cmdSQL(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sql DB STATEMENTS")
	}
	ctx := context.Background()
	if strings.HasPrefix(args[0], "postgres://") || strings.HasPrefix(args[0], "postgresql://") {
		conn, err := pgx.Connect(ctx, args[0])
		ts.Check(err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, args[1])
		ts.Check(err)
		return
	}
	db, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0])+"?_pragma=busy_timeout(10000)")
	ts.Check(err)
	defer db.Close()
	_, err = db.ExecContext(ctx, args[1])
	ts.Check(err)
}

// cmdWaitSQL waits until a query on a ledger (as for sql) answers true in
// its first row's first column, querying it on one connection, from this
// process (no catchup command started per look: a second and more each on
// a loaded machine):
//
//	waitsql $CATCHUP_DB 'SELECT EXISTS (SELECT 1 FROM runs WHERE id = 2 AND status = ''running'')'
func cmdWaitSQL(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitsql DB QUERY")
	}
	ctx := context.Background()
	var ask func() (bool, error)
	if strings.HasPrefix(args[0], "postgres://") || strings.HasPrefix(args[0], "postgresql://") {
		conn, err := pgx.Connect(ctx, args[0])
		ts.Check(err)
		defer conn.Close(ctx)
		ask = func() (yes bool, err error) { return yes, conn.QueryRow(ctx, args[1]).Scan(&yes) }
	} else {
		db, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0])+"?_pragma=busy_timeout(10000)")
		ts.Check(err)
		defer db.Close()
		ask = func() (yes bool, err error) { return yes, db.QueryRowContext(ctx, args[1]).Scan(&yes) }
	}
	scriptWait(ts, "the query "+args[1]+" to answer true", func() bool {
		yes, err := ask()
		ts.Check(err)
		return yes
	})
}
