package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// releaseAfterReadBack is a real ledger seen as a fleet's, where host b's
// running run of a slot ends (given back, a lock skip) right after the
// first read of the slot once the line's `catchup run` has met it (the file
// at mark exists): backfill's read-back sees b still running, its retry
// finds the slot free.
type releaseAfterReadBack struct {
	store.Store
	mark string
	done bool
}

func (r *releaseAfterReadBack) Shared() bool { return true }

func (r *releaseAfterReadBack) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]store.Run, error) {
	runs, err := r.Store.SlotRuns(ctx, task, from, to, grace)
	if _, statErr := os.Stat(r.mark); statErr == nil && !r.done {
		r.done = true
		if err := giveBack(ctx, r.Store, to); err != nil {
			return nil, err
		}
	}
	return runs, err
}

// TestShellBackfillOfHeldSlot: backfill runs a crontab task's slots through
// its line, whose `catchup run` exits 0, running nothing, when another
// host's running run holds the slot. Backfill must judge the line by the
// ledger, as scan does: a slot held by a running run is not "ran"; backfill
// waits for it as it does for an argv task, and runs it once it is free. A
// slot whose line ran no run of it is skipped, with the reason, not ran.
func TestShellBackfillOfHeldSlot(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		giveBackIn      string // when b's claim ends: during the line, or at backfill's read-back
		ran, skipped    int
		jobRuns         int
		skippedReasonIn string
	}{
		"held while the line runs, then freed": {giveBackIn: "readback", ran: 3, jobRuns: 3},
		"given back before the line exits":     {giveBackIn: "line", ran: 2, skipped: 1, jobRuns: 2, skippedReasonIn: "no outcome"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each on its own ledger; most of the time is the lines' processes
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			f.m.HomeDir = func(string) (string, error) { return f.job.dir, nil }
			bin := lineCatchupDir(t)
			held := "2026-03-01T12:00:00Z"
			mark := filepath.Join(t.TempDir(), "b-claimed")
			tab := filepath.Join(t.TempDir(), "crontab")
			lines := strings.Join([]string{
				"PATH=" + bin + ":/usr/bin:/bin", "JOBDIR=" + f.job.dir, "HELD=" + held, "MARK=" + mark,
				"GIVE_BACK=" + tc.giveBackIn, "NOW=2026-03-01T15:30:00Z",
				"0 * * * * catchup run --task job -- true", ""}, "\n")
			if err := os.WriteFile(tab, []byte(lines), 0o600); err != nil {
				t.Fatal(err)
			}
			req := scanRequest()
			req.Crontabs = []CrontabSource{{Name: tab, Path: tab}}
			if ts := f.scan(t, req); len(ts.Missed) != 0 {
				t.Fatalf("registering scan: missed %v", ts.Missed)
			}
			f.now = mustTime(t, "2026-03-01T15:30:00Z")
			ledger := &releaseAfterReadBack{Store: f.st, mark: mark}
			out, err := Backfill(context.Background(), ledger, f.m, BackfillRequest{Tasks: []string{"job"},
				From: mustTime(t, "2026-03-01T11:00:00Z"), To: mustTime(t, "2026-03-01T13:00:00Z"),
				Only: "missing", Order: "oldest", Concurrency: 1})
			if err != nil {
				t.Fatalf("backfill: %v", err)
			}
			tb := out[0]
			if tb.Ran != tc.ran || tb.Skipped != tc.skipped || tb.Failed != 0 {
				t.Errorf("backfill: ran %d, skipped %d, failed %d; want ran %d, skipped %d (12:00 held by host b); actions %+v",
					tb.Ran, tb.Skipped, tb.Failed, tc.ran, tc.skipped, tb.Actions)
			}
			if tc.skippedReasonIn != "" {
				for _, a := range tb.Actions {
					if a.Slot.Format(time.RFC3339) == held && (a.Action != ActionSkipped || !strings.Contains(a.Reason, tc.skippedReasonIn)) {
						t.Errorf("12:00: %s (%q), want skipped, saying %q", a.Action, a.Reason, tc.skippedReasonIn)
					}
				}
			}
			if got := f.job.runs(t); len(got) != tc.jobRuns {
				t.Errorf("the job ran for %d slots, want %d, each once: %v", len(got), tc.jobRuns, got)
			}
		})
	}
}
