package postgres

import (
	"context"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/backend"
	"github.com/jackc/pgx/v5"
)

// upsertTaskChanged is upsertTaskSQL writing only what a claim with
// RegisterIfClaimed registers whatever its answer (store.RegistersAnyway):
// a task not registered, retired, or registered under another schedule or
// zone. ON CONFLICT DO UPDATE locks the task's row even when it writes
// nothing, as the upsert did: every claim locks a task's row before its
// slot's, whether it registers or not.
const upsertTaskChanged = upsertTaskSQL +
	" AND (tasks.retired_at IS NOT NULL OR tasks.schedule <> excluded.schedule OR tasks.tz <> excluded.tz)"

// registersIfClaimed registers reg if the ledger holds its task retired,
// under another schedule or zone, or not at all, and reports whether it
// left reg to the claim's grant (registerGranted) instead: a duplicate
// fire, refused, then registers nothing. One statement, as the upsert.
func registersIfClaimed(ctx context.Context, tx pgx.Tx, reg store.Task) (bool, error) {
	argv, err := backend.EncodeArgv(reg.Argv)
	if err != nil {
		return false, err
	}
	tag, err := tx.Exec(ctx, upsertTaskChanged, upsertTaskArgs(reg, argv)...)
	return err == nil && tag.RowsAffected() == 0, err
}

// registerGranted queues, before b's other statements, the registration
// reg that a granted claim with RegisterIfClaimed writes: in the round
// trip of the claim's insert of its run.
func registerGranted(b *pgx.Batch, reg store.Task) error {
	argv, err := backend.EncodeArgv(reg.Argv)
	if err != nil {
		return err
	}
	b.Queue(upsertTaskAlways, upsertTaskArgs(reg, argv)...)
	return nil
}

// insertClaimed runs a granted claim's insert of its run (insert, args),
// scanning its row into into; with register (ClaimRequest.RegisterIfClaimed,
// left to the grant) after the claim's registration, in one round trip.
func insertClaimed(ctx context.Context, tx pgx.Tx, req store.ClaimRequest, insert string, args, into []any, register bool) error {
	if !register {
		return tx.QueryRow(ctx, insert, args...).Scan(into...)
	}
	b := &pgx.Batch{}
	if err := registerGranted(b, *req.Register); err != nil {
		return err
	}
	b.Queue(insert, args...)
	br := tx.SendBatch(ctx, b)
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(into...)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}
