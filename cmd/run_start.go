package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/ledger"
)

// openRunLedger opens the ledger at path for a fire.
func openRunLedger(ctx context.Context, path string) (store.Store, error) {
	loc, err := store.ParseLocation(path)
	if err != nil {
		return nil, err
	}
	st, err := ledger.Open(ctx, loc)
	if err != nil {
		err = openHint(err, path)
	}
	return st, err
}

// readMachineAsync reads, in the background, the host's identity
// (newMachine) and the zone a fire without --tz reads its schedule in
// (zoneFromHost, into req): the function it returns waits for them. req
// is not read meanwhile.
func readMachineAsync(c *cobra.Command, g *globals, path string, req *catchup.RunRequest) func() (catchup.Machine, error) {
	type result struct {
		m     catchup.Machine
		err   error
		usage bool
	}
	done := make(chan result, 1)
	go func() {
		m, err := newMachine(g, path, true)
		if err != nil {
			done <- result{err: err}
			return
		}
		err = zoneFromHost(req, m)
		done <- result{m: m, err: err, usage: err != nil}
	}()
	return func() (catchup.Machine, error) {
		r := <-done
		switch {
		case r.usage:
			return r.m, usageErr(c, r.err)
		case r.err != nil:
			return r.m, &exitStatus{code: catchup.ExitInternal, err: r.err}
		}
		return r.m, nil
	}
}
