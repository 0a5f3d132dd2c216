package postgres

import (
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5/pgconn"
)

// lockTimedOut reports whether err is a statement that gave up waiting for
// a row lock another session held (55P03 lock_not_available: lockWait).
func lockTimedOut(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "55P03"
}

// cancelledByServer reports whether err is a statement the server cancelled
// for a cause that passes (store.ErrLedgerCancelled): 57014 query_canceled
// (a statement_timeout; not a cancel of catchup's own, which is
// context.Canceled), 40001 serialization_failure, 40P01 deadlock_detected,
// 53200 out_of_memory. Not 53100 disk_full: a full disk is noted on the
// host at once, as on a SQLite ledger (history_status_noted), not retried
// for a lease while the fire's process lingers.
func cancelledByServer(err error) bool {
	var pe *pgconn.PgError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &pe) {
		return false
	}
	return slices.Contains([]string{"57014", "40001", "40P01", "53200"}, pe.Code)
}
