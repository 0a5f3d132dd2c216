package catchup

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// cancellingShared is a shared ledger whose server cancels the first
// `cancels` writes of an outcome (a statement timeout), then takes it.
type cancellingShared struct {
	store.Store
	cancels int32
	tries   *atomic.Int32
}

func (cancellingShared) Shared() bool { return true }
func (c cancellingShared) Finish(ctx context.Context, id int64, o store.Outcome) error {
	if c.tries.Add(1) <= c.cancels {
		return fmt.Errorf("write ledger db:5432/x: %w: ERROR: canceling statement due to statement timeout (SQLSTATE 57014)", store.ErrLedgerCancelled)
	}
	return c.Store.Finish(ctx, id, o)
}

// TestOutcomeCancelledByTheServerIsTriedAgain: an outcome's write the
// server cancels (a statement timeout) is tried again until recorded, as
// for a lost connection; one cancelled at every try is noted for the next
// scan once the retries have waited the lease (then another host may have
// taken the run for dead), never tried for good. Before, the first
// cancel gave it up to the note (e2e TestFleetOutcomeOutlastsATimeout).
func TestOutcomeCancelledByTheServerIsTriedAgain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		cancels   int32
		wantTries int32
		wantNoted bool
	}{
		{"cancelled once", 1, 2, false},
		{"cancelled at every try", 1 << 30, 3, true}, // tries after 1 s and 2 s: the lease of 2 s waited
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			f.m.Lease = 2 * time.Second
			var mu sync.Mutex
			var said bytes.Buffer
			f.m.Notice = func(format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintf(&said, format+"\n", args...)
			}
			req := f.request(t)
			req.Shared = true
			tries := &atomic.Int32{}
			res, err := Run(context.Background(), cancellingShared{Store: f.st, cancels: tc.cancels, tries: tries}, nil, f.m, req)
			if err != nil || !res.Ran {
				t.Fatalf("Run = %+v, %v; want it run", res, err)
			}
			mu.Lock()
			got := said.String()
			mu.Unlock()
			if n := tries.Load(); n != tc.wantTries {
				t.Errorf("the outcome was written %d times, want %d; said:\n%s", n, tc.wantTries, got)
			}
			if !strings.Contains(got, "cannot record the outcome of run 1 yet: ") || !strings.Contains(got, "; recording it again in 1s") {
				t.Errorf("said:\n%s\nwant that it records the outcome again", got)
			}
			if noted := strings.Contains(got, "is noted on this host for its next scan to record"); noted != tc.wantNoted {
				t.Errorf("noted = %v, want %v; said:\n%s", noted, tc.wantNoted, got)
			}
		})
	}
}
