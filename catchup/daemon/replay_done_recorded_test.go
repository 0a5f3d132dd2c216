package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReplayDoneLoggedOnceRecorded: a replay's event=done line is logged
// once its outcome is in the ledger, as a fire's is. On SQLite, scan holds
// a replay's outcome for the next replay's claim (one commit instead of
// two); in the daemon the line said `succeeded` while the run still read
// `running`, and the next claim waited behind the other tasks' writes: a
// power cut then, the log said the job succeeded, and the next start took
// the run for dead and ran its slot again.
func TestReplayDoneLoggedOnceRecorded(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", start)
	seen := &doneStatuses{st: f.st}
	f.d.cfg.Log = slog.New(seen)
	*f.now = start.Add(3 * time.Minute) // 10:01, 10:02 and 10:03 missed
	f.d.scan(context.Background(), f.task, time.Time{}, time.Time{})
	if got, want := strings.Count(f.fires(), "replay"), 3; got != want {
		t.Fatalf("%d replays ran, want %d:\n%s", got, want, f.fires())
	}
	if got, want := seen.String(), "succeeded succeeded succeeded"; got != want {
		t.Errorf("the ledger read the runs as %q as their done lines were logged, want %q", got, want)
	}
}

// doneStatuses is a log handler that reads, as each event=done line is
// logged, its run's status in the ledger.
type doneStatuses struct {
	st store.Store
	mu sync.Mutex
	s  []string
}

func (h *doneStatuses) Enabled(context.Context, slog.Level) bool { return true }
func (h *doneStatuses) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *doneStatuses) WithGroup(string) slog.Handler            { return h }

func (h *doneStatuses) Handle(ctx context.Context, r slog.Record) error {
	if r.Message != "job ended" {
		return nil
	}
	var id int64
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "run" {
			id = a.Value.Int64()
		}
		return true
	})
	run, err := h.st.Run(ctx, id)
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.s = append(h.s, fmt.Sprintf("run %d: %v", id, err))
	} else {
		h.s = append(h.s, run.Status)
	}
	return nil
}

func (h *doneStatuses) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.s, " ")
}
