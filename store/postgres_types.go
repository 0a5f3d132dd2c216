package store

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgExecer is what *pgxpool.Pool and pgx.Tx share.
type pgExecer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// epoch stands for a zero time in NOT NULL columns, as 0 does in SQLite.
var epoch = time.Unix(0, 0).UTC()

// pgTime is t as stored: millisecond precision like the SQLite ledger, so
// that both backends return the same times.
func pgTime(t time.Time) time.Time {
	if t.IsZero() {
		return epoch
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

// pgNullTime is t for a nullable column: NULL when zero.
func pgNullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return pgTime(t)
}

// pgSlot is a slot as stored: whole seconds, NULL for none.
func pgSlot(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return time.Unix(t.Unix(), 0).UTC()
}

// fromPG turns a stored time back into a UTC time, zero for NULL or epoch.
func fromPG(t *time.Time) time.Time {
	if t == nil || t.Equal(epoch) {
		return time.Time{}
	}
	return t.UTC()
}

// pgText makes free text storable: PostgreSQL text holds neither NUL bytes
// nor invalid UTF-8, and an outcome must be recorded whatever its message.
func pgText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
