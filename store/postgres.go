package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the shared ledger: one PostgreSQL database (or one schema of
// it, chosen with search_path in the DSN) used by every host of a fleet.
//
// Exactly-once per slot rests on the slots table: a claim is one INSERT .. ON
// CONFLICT on its primary key (task, slot), so two hosts cannot both hold a
// slot whatever the isolation level. Every other write that changes whether
// a slot is held (an outcome, an interruption, a skip record, an import)
// locks the slot's row first and then recomputes its holders from the runs,
// so that a late outcome never undoes the claim of the run that replaced it.
// A slot's succeeded_id never goes down, so pruning a succeeded run leaves
// its slot done. A task's watermark is written under its task row's lock
// (see postgres_settle.go).
type Postgres struct {
	pool  *pgxpool.Pool
	conn  *pgx.ConnConfig // for the dedicated connections of LockTask
	where string          // host:port/database: never the credentials
	pw    string          // the DSN's password, scrubbed from every error

	mu    sync.Mutex
	locks map[*pgx.Conn]int64 // connections holding a task lock, and its key
}

// pgConnectTimeout bounds a connection attempt when the DSN sets no
// connect_timeout: a ledger that does not answer must not hang catchup.
const pgConnectTimeout = 10 * time.Second

// errBadDSN is returned for a DSN that does not parse. It does not quote the
// DSN: a malformed one could hide its password from any redaction.
var errBadDSN = errors.New("invalid PostgreSQL DSN; want postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?PARAM=VALUE&...]")

// OpenPostgres connects to the ledger at dsn and brings its schema up to
// date. It refuses, touching nothing, a schema newer than this catchup.
// Errors name the ledger as host:port/database, never with credentials.
func OpenPostgres(ctx context.Context, dsn string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open ledger: %w", errBadDSN)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = pgConnectTimeout
	}
	// Idle connections are not kept for long: a CLI process is short-lived,
	// and a long-running one should not pin server slots.
	cfg.MinConns = 0
	cfg.MaxConnIdleTime = time.Minute
	p := &Postgres{
		conn:  cfg.ConnConfig.Copy(),
		where: pgWhere(cfg.ConnConfig),
		pw:    cfg.ConnConfig.Password,
		locks: map[*pgx.Conn]int64{},
	}
	p.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, p.wrap("open ledger", err)
	}
	if err := p.checkSchema(ctx); err != nil {
		p.pool.Close()
		return nil, err
	}
	return p, nil
}

// pgWhere names a ledger without its credentials.
func pgWhere(c *pgx.ConnConfig) string {
	return fmt.Sprintf("%s:%d/%s", c.Host, c.Port, c.Database)
}

// SafeLocation returns a ledger location fit to print: a PostgreSQL DSN as
// host:port/database, without user, password or parameters; a SQLite path
// as it is.
func SafeLocation(location string) string {
	if !IsPostgres(location) {
		return location
	}
	cfg, err := pgx.ParseConfig(location)
	if err != nil {
		return "(invalid PostgreSQL DSN)"
	}
	return pgWhere(cfg)
}

// Where is the ledger as host:port/database.
func (p *Postgres) Where() string { return p.where }

// Close closes the ledger, releasing any task lock still held.
func (p *Postgres) Close() error {
	p.mu.Lock()
	conns := p.locks
	p.locks = map[*pgx.Conn]int64{}
	p.mu.Unlock()
	for c, key := range conns {
		unlockTask(c, key)
	}
	p.pool.Close()
	return nil
}

func (p *Postgres) checkSchema(ctx context.Context) error {
	ms, err := loadMigrations("postgres")
	if err != nil {
		return err
	}
	// The common case, an up-to-date ledger, costs two reads and no write.
	var exists bool
	err = p.pool.QueryRow(ctx,
		`SELECT to_regclass(quote_ident(current_schema()) || '.schema_version') IS NOT NULL`).Scan(&exists)
	if err != nil {
		return p.wrap("open ledger", err)
	}
	if exists {
		var current int
		if err := p.pool.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
			return p.wrap("read ledger", err)
		}
		if current == latestVersion(ms) {
			return nil
		}
		if err := checkNotNewer(ms, current); err != nil {
			return p.wrap("open ledger", err)
		}
	}
	return p.wrap("migrate ledger", p.migrate(ctx, ms))
}

// migrate applies the missing migrations in one transaction, under a lock
// that serialises the hosts that open a new ledger at the same time.
func (p *Postgres) migrate(ctx context.Context, ms []migration) error {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('catchup:migrate:' || current_schema(), 0))`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY)`); err != nil {
		return err
	}
	var current int
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
		return err
	}
	// Refusing rolls back: not even schema_version is left behind.
	if err := checkNotNewer(ms, current); err != nil {
		return err
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("apply migration %d: %w", m.version, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_version (version) VALUES ($1)`, m.version); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// redactedError is an error whose text had the DSN's password scrubbed; it
// still unwraps to the original for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// ErrLedgerUnreachable marks an error of a shared ledger whose server could
// not be reached, or whose connection was lost: the call may or may not have
// taken effect. Finish, Interrupt, Heartbeat, UpsertTask and Import
// are safe to repeat once the server is back. A repeated Claim may find the
// slot held by the very run the lost attempt inserted (same Host, PID,
// BootID and StartedAt); a repeated AddRun may record a skip twice.
var ErrLedgerUnreachable = errors.New("ledger unreachable")

// pgUnreachable tells a lost or refused connection from an error of the
// statement itself.
func pgUnreachable(err error) bool {
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
func (p *Postgres) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var e error
	if pgUnreachable(err) {
		e = fmt.Errorf("%s %s: %w: %w", op, p.where, ErrLedgerUnreachable, err)
	} else {
		e = fmt.Errorf("%s %s: %w", op, p.where, err)
	}
	if p.pw != "" && strings.Contains(e.Error(), p.pw) {
		return &redactedError{msg: strings.ReplaceAll(e.Error(), p.pw, "xxxxx"), err: e}
	}
	return e
}
