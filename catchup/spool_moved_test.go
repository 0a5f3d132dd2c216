package catchup

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// movedFinish is a ledger whose file was replaced while a job ran: the
// outcome's write is refused (ErrLedgerMoved); the file now at the path
// is the same ledger (a copy made while the job ran: its claim in it).
type movedFinish struct{ store.Store }

func (movedFinish) Finish(context.Context, int64, store.Outcome) error {
	return fmt.Errorf("write ledger x: %w (it was replaced by another file)", store.ErrLedgerMoved)
}

// TestMovedOutcomeLandsInTheFileNowThere: the outcome of a run whose ledger
// file was replaced while it ran is noted on the host; the next scan
// records it on the run's claim when the file now at the path holds a copy
// of it, and as a run of its slot when it holds none (another run under
// that id, or none): either way the slot, which ran, is not run again.
func TestMovedOutcomeLandsInTheFileNowThere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		another  bool // the claim's id names another run in the file now there
		wantRuns int  // records of the 10:00 slot after the scan
	}{
		{name: "claim_copied", wantRuns: 1},
		{name: "claim_not_there", another: true, wantRuns: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			f.run(t, f.request(t))
			m := f.m
			m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:00:30Z") }
			if res, err := Run(context.Background(), movedFinish{f.st}, nil, m, f.request(t)); err != nil || !res.Ran {
				t.Fatalf("fire whose ledger was replaced: %+v, %v", res, err)
			}
			if tc.another {
				rewriteNotes(t, filepath.Join(f.m.LockDir, spoolName), func(e *spoolEntry) { e.PID++ })
			}
			f.now = mustTime(t, "2026-03-01T10:30:00Z")
			// Before the scan, history reads the slot as the scan records
			// it: the copied claim with the noted outcome, else the claim
			// under that id beside the note's fire.
			m.Now = func() time.Time { return f.now }
			read, err := History(context.Background(), f.st, m, store.HistoryFilter{Task: "job", Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			checkSlotRecords(t, "history before the scan", read, tc.wantRuns)
			if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 {
				t.Errorf("scan: missed %v; want none (10:00 ran and succeeded)", ts.Missed)
			}
			if got := f.job.runs(t); len(got) != 2 {
				t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
			}
			checkSlotRecords(t, "the ledger after the scan", f.history(t), tc.wantRuns)
		})
	}
}

// checkSlotRecords checks that runs hold want records of the 10:00 slot,
// one of them succeeded.
func checkSlotRecords(t *testing.T, what string, runs []store.Run, want int) {
	t.Helper()
	var slot []store.Run
	succeeded := 0
	for _, r := range runs {
		if r.Slot.Equal(mustTime(t, "2026-03-01T10:00:00Z")) {
			slot = append(slot, r)
			if r.Status == store.StatusSucceeded {
				succeeded++
			}
		}
	}
	if len(slot) != want || succeeded != 1 {
		t.Errorf("%s: slot 10:00 has %d records, %d succeeded; want %d, one succeeded: %+v", what, len(slot), succeeded, want, slot)
	}
}

// rewriteNotes rewrites each note of the notes file at path with edit.
func rewriteNotes(t *testing.T, path string, edit func(*spoolEntry)) {
	t.Helper()
	entries, err := readSpool(path, os.Getuid())
	if err != nil || len(entries) == 0 {
		t.Fatalf("notes at %s: %d, %v", path, len(entries), err)
	}
	var out []byte
	for _, e := range entries {
		edit(&e)
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, line...), '\n')
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}
