package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5"
)

// registersIfClaimed reports whether a claim with RegisterIfClaimed leaves
// its registration reg to its grant: the ledger holds the task, not
// retired, under reg's schedule and zone (a duplicate fire, refused, then
// registers nothing). The task's row is locked as the upsert would lock it
// (FOR NO KEY UPDATE), before the slot's: every claim locks a task's row
// before its slot's, whether it registers or not.
func registersIfClaimed(ctx context.Context, tx pgx.Tx, reg store.Task) (bool, error) {
	var schedule, tz string
	var retired *time.Time
	err := tx.QueryRow(ctx, `SELECT schedule, tz, retired_at FROM tasks WHERE name = $1 FOR NO KEY UPDATE`,
		reg.Name).Scan(&schedule, &tz, &retired)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, err
	}
	return !store.RegistersAnyway(reg, err == nil, schedule, tz, retired != nil), nil
}
