package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestWrapMarksAStatementTheServerCancelled: an error the server gives for
// a cause that passes (a statement timeout, a deadlock, a serialization
// failure, memory or disk short) is store.ErrLedgerCancelled, so that an
// outcome's write is repeated rather than given up; a statement error that
// would fail again (a missing table, a constraint), a lock timeout
// (store.ErrLedgerLocked) and catchup's own cancel are not.
func TestWrapMarksAStatementTheServerCancelled(t *testing.T) {
	p := &Ledger{where: "db:5432/test"}
	for _, tc := range []struct {
		name string
		err  error
		want error // the marker, or nil for none
	}{
		{"statement timeout", &pgconn.PgError{Code: "57014"}, store.ErrLedgerCancelled},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, store.ErrLedgerCancelled},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, store.ErrLedgerCancelled},
		{"disk full", &pgconn.PgError{Code: "53100"}, nil},
		{"out of memory", &pgconn.PgError{Code: "53200"}, store.ErrLedgerCancelled},
		{"lock timeout", &pgconn.PgError{Code: "55P03"}, store.ErrLedgerLocked},
		{"too many connections", &pgconn.PgError{Code: "53300"}, store.ErrLedgerUnreachable},
		{"missing table", &pgconn.PgError{Code: "42P01"}, nil},
		{"unique violation", &pgconn.PgError{Code: "23505"}, nil},
		{"catchup's own cancel", fmt.Errorf("%w: %w", context.Canceled, &pgconn.PgError{Code: "57014"}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := p.wrap("write ledger", tc.err)
			for _, marker := range []error{store.ErrLedgerCancelled, store.ErrLedgerLocked, store.ErrLedgerUnreachable} {
				if got := errors.Is(err, marker); got != (marker == tc.want) {
					t.Errorf("errors.Is(%v, %q) = %v, want %v", err, marker, got, !got)
				}
			}
		})
	}
}
