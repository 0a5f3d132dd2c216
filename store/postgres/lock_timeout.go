package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// lockTimedOut reports whether err is a statement that gave up waiting for
// a row lock another session held (55P03 lock_not_available: lockWait).
func lockTimedOut(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "55P03"
}
