// Package postgres is the shared ledger: one PostgreSQL database (or one
// schema of it, chosen with search_path in the URL) used by every host of a
// fleet.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Ledger is a PostgreSQL ledger. It implements store.Store.
//
// Exactly-once per slot rests on the slots table: a claim is one INSERT .. ON
// CONFLICT on its primary key (task, slot), so two hosts cannot both hold a
// slot whatever the isolation level. Every other write that changes whether
// a slot is held (an outcome, an interruption, a skip record, an import)
// locks the slot's row first and then recomputes its holders from the runs,
// so that a late outcome never undoes the claim of the run that replaced it.
// A slot's succeeded_id never goes down, so pruning a succeeded run leaves
// its slot done. A task's watermark is written under its task row's lock
// (see settle.go).
type Ledger struct {
	pool  *pool
	where string // the location's Redacted name: never the credentials
	// mustExist: opened by OpenExisting, so checkSchema creates nothing.
	mustExist bool
	pw        string   // the DSN's password, scrubbed from every error
	role      string   // the DSN's user, for the fixes errors name (fixOf)
	schema    string   // the DSN's schema ("public" when it sets none), likewise
	printed   []string // names the driver prints as they are, never scrubbed (printedNames)
	// server, database, user: where the DSN points, for an open error's fix
	// (withOpenFix).
	server, database, user string

	mu         sync.Mutex
	locks      map[string]int64 // task locks held: task -> run id
	idle       *time.Timer      // closes the connections: see letGo
	letGoAfter time.Duration
	closed     bool
	lockRaced  func() // tests: called when a task lock's insert found it held, before its holder is read
	clock      serverClock
}

// connectTimeout bounds a connection attempt when the DSN sets no
// connect_timeout: a ledger that does not answer must not hang catchup.
const connectTimeout = 10 * time.Second

// idleInTransaction is how long the server keeps a transaction of this
// ledger whose client sends nothing more (a host frozen or cut off between
// two statements) before it ends the session, and so lets go of the rows it
// locked: every other host's claim, settle or scan of the task waits on
// them. catchup never waits between the statements of a transaction, so
// only a stalled host meets it. Set per transaction (SET LOCAL), so that a
// pooler sharing server sessions passes it on to no other client.
var idleInTransaction = 30 * time.Second

// lockWait bounds how long a statement of such a transaction waits for a
// row another session locked (lock_timeout): a session that is no catchup
// (an operator's psql left in a transaction, a tool's long one) can hold
// the task's row for hours, and every host's fires of the task waited as
// long, without a word, each on a connection of its own. Longer than
// idleInTransaction, so that a stalled catchup host's locks are ended by
// the server before any waiter gives up; catchup's own transactions hold
// rows for moments only. A claim so cut runs nothing and says so; scan
// replays its slot.
var lockWait = time.Minute

// begin starts a transaction that the server ends if this host stalls in
// it (idleInTransaction), and whose statements wait for another session's
// row locks at most lockWait, in the one round trip of its BEGIN.
func (p *Ledger) begin(ctx context.Context) (pgx.Tx, error) {
	return p.pool.BeginTx(ctx, pgx.TxOptions{BeginQuery: fmt.Sprintf(
		"BEGIN; SET LOCAL idle_in_transaction_session_timeout = %d; SET LOCAL lock_timeout = %d",
		idleInTransaction.Milliseconds(), lockWait.Milliseconds())})
}

// Open connects to the ledger at dsn, a postgres:// URL, and brings its
// schema up to date. It refuses, touching nothing, a schema newer than this
// catchup. Errors name the ledger by its store.Location's Redacted name,
// never with credentials.
func Open(ctx context.Context, dsn string) (*Ledger, error) { return open(ctx, dsn, false) }

// OpenExisting is Open for a command that only reads: a schema without a
// ledger in it (empty, or not there) is store.ErrNoLedger, never created.
func OpenExisting(ctx context.Context, dsn string) (*Ledger, error) { return open(ctx, dsn, true) }

func open(ctx context.Context, dsn string, mustExist bool) (*Ledger, error) {
	loc, err := store.ParseLocation(dsn)
	if err == nil && loc.Kind != store.Postgres {
		err = errors.New("want a postgres:// URL")
	}
	if err != nil {
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil { // ParseLocation parsed it already; its text may hold the password
		return nil, errors.New("open ledger: invalid PostgreSQL DSN")
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	var counted *runs
	if !setsExecMode(dsn) { // see execmode.go
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	// A DSN without statement cache (statement_cache_capacity=0) prepares
	// nothing: pgx refuses the cache-statement mode then.
	if !setsExecMode(dsn) && cfg.ConnConfig.StatementCacheCapacity > 0 {
		counted = &runs{}
		cfg.AfterConnect = func(context.Context, *pgx.Conn) error {
			counted.forget()
			return nil
		}
	}
	// Times are read as text in the exec mode, which pgx parses in the ISO
	// style only: a server, database or role may set another DateStyle
	// ('SQL, DMY'). Sent in the startup message, so it costs no round trip
	// (and poolers such as PgBouncer pass DateStyle on).
	for k := range cfg.ConnConfig.RuntimeParams {
		if strings.EqualFold(k, "datestyle") {
			delete(cfg.ConnConfig.RuntimeParams, k)
		}
	}
	cfg.ConnConfig.RuntimeParams["DateStyle"] = "ISO"
	// Idle connections are not kept for long: a CLI process is short-lived,
	// and a long-running one should not pin server slots.
	cfg.MinConns = 0
	cfg.MaxConnIdleTime = time.Minute
	p := &Ledger{
		mustExist:  mustExist,
		where:      loc.Redacted(),
		pw:         cfg.ConnConfig.Password,
		role:       cfg.ConnConfig.User,
		schema:     dsnSchema(cfg.ConnConfig.RuntimeParams),
		printed:    printedNames(&cfg.ConnConfig.Config),
		server:     serverName(&cfg.ConnConfig.Config),
		database:   cfg.ConnConfig.Database,
		user:       cfg.ConnConfig.User,
		locks:      map[string]int64{},
		letGoAfter: letGoAfter,
	}
	pl, err := pgxpool.NewWithConfig(ctx, cfg)
	p.pool = &pool{Pool: pl, runs: counted, stalls: &stalls{}}
	if err != nil {
		return nil, p.wrap("open ledger", err)
	}
	if err := p.checkSchemaWhenFree(ctx); err != nil {
		p.pool.Close()
		return nil, err
	}
	return p, nil
}

// Close closes the ledger, releasing any task lock still held.
func (p *Ledger) Close() error {
	p.mu.Lock()
	held := p.locks
	p.locks = map[string]int64{}
	p.closed = true
	if p.idle != nil {
		p.idle.Stop()
	}
	p.mu.Unlock()
	release, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	for task, id := range held {
		p.releaseLockIn(release, task, id)
	}
	closed := make(chan struct{})
	go func() {
		p.pool.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(closeWait):
		// A connection whose statement was cut (giveup.go) is closed by
		// pgx in the background, after asking the server to cancel it, for
		// up to 15 s: a server that stopped answering answers neither.
		// Nothing is left to write on it; the process need not wait.
	}
	return nil
}

// closeWait is how long Close waits for the connections to close.
const closeWait = 2 * time.Second

// redactedError is an error whose text had the DSN's password scrubbed
// (and was put on one line, see oneLine); it
// still unwraps to the original for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// unreachable tells a lost or refused connection from an error of the
// statement itself.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, context.Canceled):
		return false // the caller gave up; the ledger may be fine
	case errors.As(err, &pe):
		// 08: connection exception; 57P01-57P03: server shutting down,
		// crashed or starting; 53300: too many connections.
		return strings.HasPrefix(pe.Code, "08") || slices.Contains([]string{"57P01", "57P02", "57P03", "53300"}, pe.Code)
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.Timeout(err), pgconn.SafeToRetry(err),
		errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE):
		return true
	}
	return false
}

// wrap names the ledger in every error, marks the ones of an unreachable
// ledger with ErrLedgerUnreachable, and makes sure that no error text
// carries the password.
func (p *Ledger) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var e error
	if unreachable(err) {
		e = fmt.Errorf("%s %s: %w: %w", op, p.where, store.ErrLedgerUnreachable, err)
	} else if lockTimedOut(err) {
		e = fmt.Errorf("%s %s: %w: %w", op, p.where, store.ErrLedgerLocked, err)
	} else if cancelledByServer(err) {
		e = fmt.Errorf("%s %s: %w: %w", op, p.where, store.ErrLedgerCancelled, err)
	} else {
		e = fmt.Errorf("%s %s: %w", op, p.where, err)
	}
	// Only the driver's text is scrubbed: catchup's own words (op, the
	// ledger's name) hold no password.
	head := strings.TrimSuffix(e.Error(), err.Error())
	msg := head + scrub(oneLine(err.Error()), p.pw, p.printed) + p.fixOf(err)
	if msg != e.Error() {
		return &redactedError{msg: msg, err: e}
	}
	return e
}

// oneLine is a driver's error on one line: pgx puts each host's attempt
// on a line of its own ("\n\t"), which a catchup: message would print
// escaped, and with sslmode=prefer a refused connection is the same line
// twice (with TLS, then without): each is said once, joined by "; ".
func oneLine(msg string) string {
	if !strings.Contains(msg, "\n") {
		return msg
	}
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(parts, l) {
			parts = append(parts, l)
		}
	}
	out := parts[0]
	for _, l := range parts[1:] {
		if strings.HasSuffix(out, ":") {
			out += " " + l
		} else {
			out += "; " + l
		}
	}
	return out
}

// busyRetry bounds how long Open waits for a connection slot when the
// server (or the role) has none free (SQLSTATE 53300): a fleet's fires
// arrive together, each needs a connection for a moment only.
const busyRetry = time.Minute

// checkSchemaWhenFree is checkSchema, retried while the server refuses
// connections for lack of free slots. Each refusal costs the server a
// backend, so the waits grow (100 ms doubling to 5 s) and are spread at
// random over their whole length: a burst of fires does not come back in
// step.
func (p *Ledger) checkSchemaWhenFree(ctx context.Context) error {
	deadline := time.Now().Add(busyRetry)
	limit := 100 * time.Millisecond
	for {
		err := p.checkSchema(ctx)
		var pe *pgconn.PgError
		if err == nil || !errors.As(err, &pe) || pe.Code != "53300" || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(rand.N(int64(limit)))):
		}
		limit = min(2*limit, 5*time.Second)
	}
}

// Backup implements store.Store: pg_dump does it.
func (p *Ledger) Backup(ctx context.Context, dest string) error { return store.ErrNoBackup }
