package catchup

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestScanLeavesTheRestOnceItsDirIsRefused: a task's working directory
// made untrusted during a scan's replays of it (writable by others) refuses
// every later replay too: the scan says so once and leaves the later slots
// missed, nothing recorded of them, instead of trying (and recording
// failed) each. Made so between two replays, no replay is recorded failed;
// made so as a replay starts (after the scan's own check, before the job's),
// that one is recorded failed, exit 126, and only the later ones are left.
func TestScanLeavesTheRestOnceItsDirIsRefused(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		atStart          bool // chmod in Replays.Start of the first replay, else in its Replays.End
		replayed, failed int
		wantLog          []string
		wantStatus       []string // of the task's runs, oldest first
	}{
		"between two replays": {replayed: 1, wantLog: append(hours("schedule", 9), hours("replay", 10)...),
			wantStatus: []string{store.StatusSucceeded, store.StatusSucceeded}},
		"as the first replay starts": {atStart: true, failed: 1, wantLog: hours("schedule", 9),
			wantStatus: []string{store.StatusSucceeded, store.StatusFailed}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			f.run(t, f.request(t)) // registers the hourly task, in f.job.dir
			f.now = mustTime(t, "2026-03-01T12:30:00Z")
			req := scanRequest()
			refuse := func() {
				if err := os.Chmod(f.job.dir, 0o777); err != nil {
					t.Error(err)
				}
			}
			calls := 0
			req.Replays.Start = func(string, time.Time) {
				if calls++; calls == 1 && tt.atStart {
					refuse()
				}
			}
			req.Replays.End = func(string, SlotAction) {
				if !tt.atStart {
					refuse()
				}
			}
			rep, err := Scan(context.Background(), f.st, f.m, req)
			if err != nil {
				t.Fatal(err)
			}
			ts := rep.Tasks[0]
			if len(ts.Missed) != 3 || ts.Replayed != tt.replayed || ts.Failed != tt.failed || ts.Left != 2 {
				t.Errorf("missed %d, replayed %d, failed %d, left %d; want 3, %d, %d, 2",
					len(ts.Missed), ts.Replayed, ts.Failed, ts.Left, tt.replayed, tt.failed)
			}
			said := 0
			for _, w := range ts.Warnings {
				if strings.Contains(w, "working directory") {
					said++
					if !strings.Contains(w, "its 2 missed slots are left for the next scan") {
						t.Errorf("warning %q does not say that 2 slots are left", w)
					}
				}
			}
			if said != 1 || !rep.Failed() {
				t.Errorf("the refusal said %d times (want once), the scan failed: %v (want true): %q", said, rep.Failed(), ts.Warnings)
			}
			if got := f.job.runs(t); !slices.Equal(got, tt.wantLog) {
				t.Errorf("the job ran %q, want %q", got, tt.wantLog)
			}
			var status []string
			for _, r := range f.history(t) {
				status = append(status, r.Status)
			}
			if !slices.Equal(status, tt.wantStatus) {
				t.Errorf("runs recorded %q, want %q (the left slots stay missed)", status, tt.wantStatus)
			}
		})
	}
}

// TestScanLeavesACoalescedGapOfARefusedDir: under --replay coalesce the
// gap's one replay stands for all its slots: refused, the warning and the
// counts name them all (left, not skipped), in the dry run too, and the
// scan after the fix replays the gap.
func TestScanLeavesACoalescedGapOfARefusedDir(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	f.run(t, f.request(t))
	f.now = mustTime(t, "2026-03-01T12:30:00Z")
	if err := os.Chmod(f.job.dir, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		req := scanRequest()
		req.Replay, req.DryRun = "coalesce", dry
		ts := f.scan(t, req)
		if ts.Left != 3 || ts.Skipped != 0 || ts.Failed != 0 || len(ts.Warnings) != 1 ||
			!strings.Contains(ts.Warnings[0], "its 3 missed slots") {
			t.Errorf("dry %v: left %d, skipped %d, failed %d (want 3, 0, 0), warnings %q (want one, of 3 slots)",
				dry, ts.Left, ts.Skipped, ts.Failed, ts.Warnings)
		}
	}
	if got := f.job.runs(t); !slices.Equal(got, hours("schedule", 9)) {
		t.Errorf("the job ran %q, want only the 09:00 fire", got)
	}
	if err := os.Chmod(f.job.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	req := scanRequest()
	req.Replay = "coalesce"
	if ts := f.scan(t, req); ts.Replayed != 1 || ts.Left != 0 || ts.Skipped != 2 {
		t.Errorf("after the fix: replayed %d, left %d, skipped %d; want 1, 0, 2 (the gap coalesced)", ts.Replayed, ts.Left, ts.Skipped)
	}
}
