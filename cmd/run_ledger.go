package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// runRun opens the ledger (a failure is not fatal) and hands the request
// over to the domain.
func runRun(c *cobra.Command, g *globals, req catchup.RunRequest) error {
	catchup.PrepareRun() // while the ledger opens
	req.Dir, _ = os.Getwd()
	path, err := ledgerPath(g)
	if err != nil {
		return &exitStatus{code: catchup.ExitInternal, err: err}
	}
	ctx := c.Context()
	// Opening the ledger is most of a run's start; the host's identity is
	// read meanwhile. An empty --db names no ledger: the command runs
	// unrecorded, as for a --db that does not parse (L4).
	opened := func() (store.Store, error) { return nil, errEmptyDB }
	if !dbGivenEmpty(c, g) {
		opened = openLedgerAsync(ctx, path)
	}
	m, err := newMachine(g, path, true)
	if err == nil {
		err = zoneFromHost(&req, m)
		if err != nil {
			err = usageErr(c, err)
		}
	} else {
		err = &exitStatus{code: catchup.ExitInternal, err: err}
	}
	st, openErr := opened()
	if openErr == nil {
		defer st.Close()
		warnOpened(c.ErrOrStderr(), st)
		warnUnsafeLedger(c.ErrOrStderr(), path, os.Geteuid())
	} else if _, perr := store.ParseLocation(path); perr != nil && store.IsPostgres(path) {
		// A shared ledger that no one could reach by this location is a
		// usage error, not an outage that the next scan makes good.
		return &exitStatus{code: catchup.ExitInternal, err: fmt.Errorf("not running %s: %w", req.Task, perr)}
	}
	if err != nil {
		return err
	}
	// An empty --db names no ledger, shared or not.
	req.Shared = store.IsPostgres(path) && !dbGivenEmpty(c, g)
	if req.ReplaySlot.IsZero() { // a replay's scan or backfill said it already
		catchup.WarnClockSkew(st, m)
	}
	g.awaitSignals() // caught while the ledger opened
	report := lineReport(os.Getenv)
	res, err := catchup.Run(ctx, st, openErr, m, req)
	reportLineRun(report, res, m)
	if err != nil {
		return &exitStatus{code: catchup.ExitInternal, err: err}
	}
	return runStatus(ctx, res)
}

// runStatus is the exit status of a run with result res: the command's,
// or 128+N when signal N to catchup stopped it before the command started
// (as a signal before the claim ends catchup, and as the command would
// have died of it).
func runStatus(ctx context.Context, res catchup.RunResult) error {
	if sig, ok := stoppedBy(ctx); ok && res.Stopped {
		return &exitStatus{code: 128 + int(sig)}
	}
	if res.ExitCode != 0 {
		return &exitStatus{code: res.ExitCode}
	}
	return nil
}
