package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// preparedStatements keeps the statements of a run's lifecycle (claim,
// outcome, checkpoint lookup) prepared on the ledger's one connection, so
// that a scan replaying thousands of slots parses each of them once instead
// of at every slot (parsing was 8% of such a scan's CPU). A statement is
// prepared the second time it is asked for: a process that runs it once
// (`catchup run`) would pay for preparing it and gain nothing. A statement
// that is not prepared (yet, or because preparing failed) is run
// unprepared, which reports its error as before.
type preparedStatements struct {
	mu   sync.Mutex
	m    map[string]*sql.Stmt
	seen map[string]bool // asked for once, not prepared yet
}

// get returns query prepared on db, preparing it the second time it is
// asked for; ok is false when it is not prepared. The lock is not held
// while preparing, which waits for the connection: a transaction in
// another goroutine holds it and may need lookup meanwhile.
func (p *preparedStatements) get(ctx context.Context, db *sql.DB, query string) (st *sql.Stmt, ok bool) {
	if st, ok := p.lookup(query); ok {
		return st, true
	}
	if p.firstAsk(query) {
		return nil, false
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if had, ok := p.m[query]; ok { // another goroutine prepared it meanwhile
		st.Close()
		return had, true
	}
	if p.m == nil {
		p.m = map[string]*sql.Stmt{}
	}
	p.m[query] = st
	return st, true
}

// firstAsk reports whether query is asked for the first time, and notes it.
func (p *preparedStatements) firstAsk(query string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen[query] {
		return false
	}
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[query] = true
	return true
}

// lookup returns query's statement if it was prepared: a transaction,
// which holds the ledger's one connection, cannot prepare on the DB.
func (p *preparedStatements) lookup(query string) (*sql.Stmt, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, ok := p.m[query]
	return st, ok
}

// prepare prepares the statements a transaction is about to run (see
// lookup); it must be called outside any transaction.
func (s *Ledger) prepare(ctx context.Context, queries ...string) {
	for _, q := range queries {
		s.prepared.get(ctx, s.db, q)
	}
}

// close closes every prepared statement.
func (p *preparedStatements) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.m {
		st.Close()
	}
	p.m = nil
}

// exec runs query through its prepared statement.
func (s *Ledger) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st, ok := s.prepared.get(ctx, s.db, query); ok {
		return st.ExecContext(ctx, args...)
	}
	return s.db.ExecContext(ctx, query, args...)
}

// queryRow runs query through its prepared statement.
func (s *Ledger) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := s.prepared.get(ctx, s.db, query); ok {
		return st.QueryRowContext(ctx, args...)
	}
	return s.db.QueryRowContext(ctx, query, args...)
}

// preparedDB runs statements on the ledger through its prepared statements.
type preparedDB struct{ s *Ledger }

// ExecContext runs query on the ledger.
func (p preparedDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.s.exec(ctx, query, args...)
}

// QueryRowContext runs query on the ledger.
func (p preparedDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.s.queryRow(ctx, query, args...)
}

// preparedTx runs a transaction's statements through the ledger's prepared
// statements, those made by Ledger.prepare before the transaction began
// (bound to the transaction, database/sql reuses the statement prepared on
// the connection); any other statement is run unprepared.
type preparedTx struct {
	s  *Ledger
	tx *sql.Tx
}

// ExecContext runs query in the transaction.
func (p preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st, ok := p.s.prepared.lookup(query); ok {
		return p.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return p.tx.ExecContext(ctx, query, args...)
}

// QueryRowContext runs query in the transaction.
func (p preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := p.s.prepared.lookup(query); ok {
		return p.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return p.tx.QueryRowContext(ctx, query, args...)
}
