package cmd

import (
	"context"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/ledger"
)

// openLedger opens the ledger and describes the machine for a command
// that cannot work without the ledger.
func openLedger(ctx context.Context, g *globals, withBoot bool) (store.Store, catchup.Machine, error) {
	path, err := ledgerPath(g)
	if err != nil {
		return nil, catchup.Machine{}, failure(err)
	}
	m, err := newMachine(g, path, withBoot)
	if err != nil {
		return nil, m, failure(err)
	}
	loc, err := store.ParseLocation(path)
	if err != nil {
		return nil, m, failure(err)
	}
	st, err := ledger.Open(ctx, loc)
	if err != nil {
		return nil, m, failure(err)
	}
	return st, m, nil
}
