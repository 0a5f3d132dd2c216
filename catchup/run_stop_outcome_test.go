package catchup

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/catchup/catchup/store"
)

// lostShared is a shared ledger that went away after the claim: it takes
// no outcome.
type lostShared struct{ store.Store }

func (lostShared) Shared() bool { return true }
func (lostShared) Finish(context.Context, int64, store.Outcome) error {
	return fmt.Errorf("write ledger db:5432/x: %w: unexpected EOF", store.ErrLedgerUnreachable)
}

// TestStopWhileRecordingTheOutcomeSaysOneThing: a run stopped (SIGTERM)
// while it retries recording its outcome on an unreachable shared ledger
// notes the outcome for the next scan, which then does not replay the
// slot; it says that, and only that: not also that scan will replay it.
func TestStopWhileRecordingTheOutcomeSaysOneThing(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var mu sync.Mutex
	var said bytes.Buffer
	f.m.Notice = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&said, format+"\n", args...)
		if strings.HasPrefix(format, "ledger unreachable; recording the outcome") {
			stop() // the SIGTERM, while it waits to try again
		}
	}
	req := f.request(t)
	req.Shared, req.FailOpen = true, true
	res, err := Run(ctx, lostShared{f.st}, nil, f.m, req)
	if err != nil || !res.Ran {
		t.Fatalf("Run = %+v, %v; want it run", res, err)
	}
	mu.Lock()
	got := said.String()
	mu.Unlock()
	if !strings.Contains(got, "is noted on this host for its next scan to record") || strings.Contains(got, "will replay") {
		t.Errorf("said:\n%s\nwant that the outcome is noted for the next scan, and nothing about a replay", got)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 || ts.Replayed != 0 {
		t.Errorf("scan: missed %v, replayed %d; want nothing (10:00 ran, its outcome noted)", ts.Missed, ts.Replayed)
	}
	if runs := f.job.runs(t); len(runs) != 1 {
		t.Errorf("the job ran %d times, want once: %v", len(runs), runs)
	}
}
