package postgres

import (
	"context"
	"net/url"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// How statements are sent. pgx's default mode (cache statement) prepares a
// statement the first time a connection sees it, a round trip of its own
// (Parse, Describe), before running it: every statement of a fire is new
// to its connection (each catchup run is a new process), so a fire paid
// two round trips for each. In the exec mode, Parse, Bind, Execute and
// Sync go together, one round trip: the server infers the parameters'
// types as it does preparing the statement (pgx sends them untyped, as
// text), and pgx reads the results as text (hence DateStyle ISO in open,
// and the tails selected as hex: runColumnsFull). But the server then
// parses and plans the statement each time, which a process that runs a
// statement many times (a scan's replays, the daemon) pays for on every
// run: such a statement is prepared on its second run on the connection, and
// each later run on that connection is one round trip without the parse
// and plan. pgx takes a batch's mode from the connection (exec), but runs
// a statement prepared under its own text as prepared in any mode: a
// batch's statements are prepared so (a round trip each, once per
// connection) from their second run on. A DSN's own
// default_query_exec_mode wins over all of this.

// setsExecMode reports whether the DSN chooses pgx's exec mode itself.
func setsExecMode(dsn string) bool {
	u, err := url.Parse(dsn)
	return err == nil && u.Query().Has("default_query_exec_mode")
}

// runs counts the statements run since the pool last opened a connection
// (forget): the first run of one goes in the exec mode, the later ones
// prepared. A CLI process has one connection at a time, so these are the
// statements its connection ran: a scan whose replays each open a new one
// (letGo closes it while a job runs longer than letGoAfter, and on a
// distant ledger a replay's statements alone take that long) runs every
// statement in the exec mode, where preparing it on each new connection
// would cost a round trip more each time. nil: the DSN's mode, or the exec
// mode alone when the DSN disables pgx's statement cache
// (statement_cache_capacity=0), which refuses the cache-statement mode.
type runs struct{ seen sync.Map }

// forget forgets the statements run: a new connection has none prepared.
func (r *runs) forget() { r.seen.Clear() }

// again reports whether the process ran sql before, and counts this run.
func (r *runs) again(sql string) bool {
	_, again := r.seen.LoadOrStore(sql, struct{}{})
	return again
}

// args are a statement's arguments, led by the mode it goes in.
func (r *runs) args(sql string, args []any) []any {
	if r == nil {
		return args
	}
	mode := pgx.QueryExecModeExec
	if r.again(sql) {
		mode = pgx.QueryExecModeCacheStatement
	}
	return append([]any{mode}, args...)
}

// sendBatch sends b on conn, having prepared, under their own text, the
// statements of b the process ran before.
func (r *runs) sendBatch(ctx context.Context, conn *pgx.Conn, b *pgx.Batch) pgx.BatchResults {
	for _, q := range b.QueuedQueries {
		if r.again(q.SQL) {
			if _, err := conn.Prepare(ctx, q.SQL, q.SQL); err != nil {
				return failedBatch{err}
			}
		}
	}
	return conn.SendBatch(ctx, b)
}

// failedBatch is the results of a batch that could not be sent.
type failedBatch struct{ err error }

func (f failedBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, f.err }
func (f failedBatch) Query() (pgx.Rows, error)         { return failedRows{f.err}, f.err }
func (f failedBatch) QueryRow() pgx.Row                { return failedRow{f.err} }
func (f failedBatch) Close() error                     { return f.err }
func (f failedBatch) Tx() pgx.Tx                       { return nil }

type failedRow struct{ err error }

func (f failedRow) Scan(...any) error { return f.err }

// failedRows is the rows of a query that was not sent: none.
type failedRows struct{ err error }

func (f failedRows) Close()                                       {}
func (f failedRows) Err() error                                   { return f.err }
func (f failedRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (f failedRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (f failedRows) Next() bool                                   { return false }
func (f failedRows) Scan(...any) error                            { return f.err }
func (f failedRows) Values() ([]any, error)                       { return nil, f.err }
func (f failedRows) RawValues() [][]byte                          { return nil }
func (f failedRows) Conn() *pgx.Conn                              { return nil }
func (f failedRows) TypeMap() *pgtype.Map                         { return nil }

// releasing is the results of a batch sent on a connection of the pool,
// which goes back to the pool when they are closed.
type releasing struct {
	pgx.BatchResults
	conn *pgxpool.Conn
	once sync.Once
}

func (r *releasing) Close() error {
	err := r.BatchResults.Close()
	r.once.Do(r.conn.Release)
	return err
}

// pool is the connection pool, each statement in the mode runs picks.
type pool struct {
	*pgxpool.Pool
	runs   *runs
	stalls *stalls // giveup.go
}

func (p *pool) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	ctx, release := p.stalls.statementCtx(ctx)
	defer release()
	return p.Pool.Exec(ctx, sql, p.runs.args(sql, args)...)
}

func (p *pool) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	ctx, release := p.stalls.statementCtx(ctx)
	rows, err := p.Pool.Query(ctx, sql, p.runs.args(sql, args)...)
	if err != nil {
		release()
		return rows, err
	}
	return cutRows{Rows: rows, release: release}, nil
}

func (p *pool) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	ctx, release := p.stalls.statementCtx(ctx)
	return cutRow{Row: p.Pool.QueryRow(ctx, sql, p.runs.args(sql, args)...), release: release}
}

func (p *pool) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	ctx, release := p.stalls.statementCtx(ctx)
	if p.runs == nil {
		return cutBatch{BatchResults: p.Pool.SendBatch(ctx, b), release: release}
	}
	conn, err := p.Pool.Acquire(ctx)
	if err != nil {
		release()
		return failedBatch{err}
	}
	br := p.runs.sendBatch(ctx, conn.Conn(), b)
	if f, ok := br.(failedBatch); ok {
		conn.Release()
		release()
		return f
	}
	return cutBatch{BatchResults: &releasing{BatchResults: br, conn: conn}, release: release}
}

func (p *pool) BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	bctx, release := p.stalls.statementCtx(ctx)
	t, err := p.Pool.BeginTx(bctx, opts)
	release()
	if err != nil {
		return nil, err
	}
	return &tx{Tx: t, runs: p.runs, stalls: p.stalls}, nil
}

// tx is a transaction of pool, each statement in the mode runs picks.
type tx struct {
	pgx.Tx
	runs   *runs
	stalls *stalls
}

func (t *tx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	ctx, release := t.stalls.statementCtx(ctx)
	defer release()
	return t.Tx.Exec(ctx, sql, t.runs.args(sql, args)...)
}

func (t *tx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	ctx, release := t.stalls.statementCtx(ctx)
	rows, err := t.Tx.Query(ctx, sql, t.runs.args(sql, args)...)
	if err != nil {
		release()
		return rows, err
	}
	return cutRows{Rows: rows, release: release}, nil
}

func (t *tx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	ctx, release := t.stalls.statementCtx(ctx)
	return cutRow{Row: t.Tx.QueryRow(ctx, sql, t.runs.args(sql, args)...), release: release}
}

func (t *tx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	ctx, release := t.stalls.statementCtx(ctx)
	if t.runs == nil {
		return cutBatch{BatchResults: t.Tx.SendBatch(ctx, b), release: release}
	}
	return cutBatch{BatchResults: t.runs.sendBatch(ctx, t.Tx.Conn(), b), release: release}
}

func (t *tx) Commit(ctx context.Context) error {
	ctx, release := t.stalls.statementCtx(ctx)
	defer release()
	return t.Tx.Commit(ctx)
}

func (t *tx) Rollback(ctx context.Context) error {
	ctx, release := t.stalls.statementCtx(ctx)
	defer release()
	return t.Tx.Rollback(ctx)
}
