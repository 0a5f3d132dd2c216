package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/catchup/catchup/store"
)

// taskScheduleSQL reads what decides whether a claim with
// RegisterIfClaimed registers whatever its answer (store.RegistersAnyway).
const taskScheduleSQL = `SELECT schedule, tz, retired_at FROM tasks WHERE name = ?`

// registersIfClaimed reports whether a claim with RegisterIfClaimed leaves
// its registration reg to its grant: the ledger holds the task, not
// retired, under reg's schedule and zone (a duplicate fire, refused, then
// registers nothing). Read in the claim's immediate transaction.
func registersIfClaimed(ctx context.Context, tx preparedTx, reg store.Task) (bool, error) {
	var schedule, tz string
	var retired int64
	err := tx.QueryRowContext(ctx, taskScheduleSQL, reg.Name).Scan(&schedule, &tz, &retired)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	return !store.RegistersAnyway(reg, err == nil, schedule, tz, retired != 0), nil
}
