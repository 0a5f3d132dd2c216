package catchup

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// stoppedShared is a shared ledger whose claim was cut by a stop: the
// error is the caller's cancellation, not the ledger's.
type stoppedShared struct{ store.Store }

func (stoppedShared) Shared() bool { return true }
func (stoppedShared) Claim(ctx context.Context, _ store.ClaimRequest) (store.ClaimResult, error) {
	return store.ClaimResult{}, fmt.Errorf("read ledger db:5432/x: %w", context.Canceled)
}

// TestStopBeforeClaimIsNotAnOutage: a fire that a stop (SIGTERM to the
// daemon) cut while it claimed its slot on a shared ledger does not run,
// and says it was stopped: "ledger unreachable" would be a false outage.
func TestStopBeforeClaimIsNotAnOutage(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	var said bytes.Buffer
	f.m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
	req := f.request(t)
	req.Shared = true
	res, err := Run(context.Background(), stoppedShared{f.st}, nil, f.m, req)
	if err != nil || res.Ran {
		t.Fatalf("Run = %+v, %v; want not run", res, err)
	}
	if got := said.String(); strings.Contains(got, "unreachable") || !strings.Contains(got, "stopped") {
		t.Errorf("said %q; want that the fire was stopped, not that the ledger is unreachable", got)
	}
}

// refusingShared is a shared ledger that answers the claim with an error
// of the statement (a lock timeout): reachable, but the claim is not made.
type refusingShared struct{ store.Store }

func (refusingShared) Shared() bool { return true }
func (refusingShared) Claim(ctx context.Context, _ store.ClaimRequest) (store.ClaimResult, error) {
	return store.ClaimResult{}, fmt.Errorf("write ledger db:5432/x: ERROR: canceling statement due to lock timeout (SQLSTATE 55P03)")
}

// TestRefusedClaimIsNotAnOutage: a shared ledger that answers the claim
// with an error (a lock or statement timeout, a missing schema) is not
// called unreachable: the fire does not run, and says the claim failed.
func TestRefusedClaimIsNotAnOutage(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	var said bytes.Buffer
	f.m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
	req := f.request(t)
	req.Shared = true
	res, err := Run(context.Background(), refusingShared{f.st}, nil, f.m, req)
	if err != nil || res.Ran || res.ExitCode != exitLocked {
		t.Fatalf("Run = %+v, %v; want not run, exit %d", res, err, exitLocked)
	}
	if got := said.String(); strings.Contains(got, "unreachable") || !strings.Contains(got, "cannot record the claim") || !strings.Contains(got, "55P03") {
		t.Errorf("said %q; want that the ledger could not record the claim, with its error, not that it is unreachable", got)
	}
}
