package daemon

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestClockBehindWarnedOnce: a daemon started with its clock behind the
// ledger (a container on a node whose clock NTP has not set yet, a VM
// restored from a snapshot) warned that the ledger holds a later time at
// every rescan of each task, about once a second with --rescan 1s, once a
// minute by default, until the clock passed it. It says so once per task
// and ledger time, and again once the clock has caught up and fallen
// behind anew.
func TestClockBehindWarnedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFireFixture(t, "tick", "all", time.Date(2026, 3, 1, 10, 5, 1, 0, time.UTC))
	logs := &lockedBuffer{}
	f.d.cfg.Log = slog.New(slog.NewTextHandler(logs, nil))
	set := f.movableClock(time.Date(2026, 3, 1, 10, 5, 1, 0, time.UTC))
	f.d.fire(ctx, f.task, time.Date(2026, 3, 1, 10, 5, 0, 0, time.UTC))
	warned := func() int { return strings.Count(logs.String(), "later than now") }

	for _, at := range []time.Time{
		time.Date(2026, 3, 1, 10, 1, 30, 0, time.UTC),
		time.Date(2026, 3, 1, 10, 1, 31, 0, time.UTC),
		time.Date(2026, 3, 1, 10, 2, 40, 0, time.UTC),
	} {
		set(at) // the clock went back: 10:05 is ahead of it
		f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	}
	if n := warned(); n != 1 {
		t.Fatalf("the clock behind the ledger was warned of %d times in 3 rescans, want once:\n%s", n, logs.String())
	}
	set(time.Date(2026, 3, 1, 10, 5, 30, 0, time.UTC)) // caught up
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	set(time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC)) // behind again
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	if n := warned(); n != 2 {
		t.Errorf("the clock behind the ledger twice was warned of %d times in all, want twice:\n%s", n, logs.String())
	}
}
