package postgres

import (
	"context"
	"time"

	"github.com/catchup/catchup/store/internal/backend"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// execer is what *pgxpool.Pool and pgx.Tx share.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// epoch stands for a zero time in NOT NULL columns, as 0 does in SQLite.
var epoch = time.Unix(0, 0).UTC()

// dbTime is t as stored: millisecond precision like the SQLite ledger, so
// that both backends return the same times.
func dbTime(t time.Time) time.Time {
	if t.IsZero() {
		return epoch
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

// dbNullTime is t for a nullable column: NULL when zero.
func dbNullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return dbTime(t)
}

// dbSlot is a slot as stored: whole seconds, NULL for none.
func dbSlot(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return time.Unix(t.Unix(), 0).UTC()
}

// fromDB turns a stored time back into a UTC time, zero for NULL or epoch.
func fromDB(t *time.Time) time.Time {
	if t == nil || t.Equal(epoch) {
		return time.Time{}
	}
	return t.UTC()
}

// dbText makes a string storable byte for byte: PostgreSQL text holds
// neither NUL bytes nor invalid UTF-8, and arguments, directories, host
// names, commands and messages are bytes. fromText reads it back.
func dbText(s string) string { return backend.EncodeText(s) }

func fromText(s string) string { return backend.DecodeText(s) }
