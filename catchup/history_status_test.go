package catchup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestHistoryStatusReadsNotedOutcomes: a status filter selects runs by the
// status History reads them with, f.Limit counting those it keeps. Run 2's
// outcome (succeeded) is noted on this host, the ledger holding it
// interrupted (a scan elsewhere took it for dead); run 1 is interrupted,
// without a note. --status interrupted --limit 1 is run 1 (not nothing:
// the ledger's newest interrupted run reads succeeded), --status succeeded
// is run 2.
func TestHistoryStatusReadsNotedOutcomes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	interrupt := func(id int64) {
		t.Helper()
		if ok, err := f.st.Interrupt(ctx, id, f.m.Now(), "no heartbeat for longer than the lease"); err != nil || !ok {
			t.Fatalf("interrupt run %d: %v, %v", id, ok, err)
		}
	}
	f.fireWithAFullDisk(t)
	if err := os.Remove(filepath.Join(f.m.LockDir, spoolName)); err != nil {
		t.Fatal(err) // run 1's note lost: it reads as the ledger holds it
	}
	interrupt(1)
	f.now = mustTime(t, "2026-03-01T10:00:30Z")
	f.fireWithAFullDisk(t)
	interrupt(2)

	ids := func(status string, limit int) []int64 {
		t.Helper()
		runs, err := History(ctx, f.st, f.m, store.HistoryFilter{Task: "job", Status: status, Limit: limit})
		if err != nil {
			t.Fatalf("History --status %s: %v", status, err)
		}
		var out []int64
		for _, r := range runs {
			if r.Status != status {
				t.Errorf("History --status %s: run %d reads %s", status, r.ID, r.Status)
			}
			out = append(out, r.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		status string
		limit  int
		want   []int64
	}{
		{"interrupted, limit 1", store.StatusInterrupted, 1, []int64{1}},
		{"interrupted", store.StatusInterrupted, 0, []int64{1}},
		{"succeeded", store.StatusSucceeded, 0, []int64{2}},
		{"running", store.StatusRunning, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(tc.status, tc.limit); !slices.Equal(got, tc.want) {
				t.Errorf("History --status %s --limit %d = runs %v, want %v", tc.status, tc.limit, got, tc.want)
			}
		})
	}
}
