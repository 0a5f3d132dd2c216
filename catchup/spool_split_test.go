package catchup

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestImportKeepsTheNotesItDoesNotTake: an import that records only some
// notes (an edited line's registration: the old line's fires before the
// change, the edited line's after it) gives the others back, once each:
// the next import records them, and nothing is recorded twice or lost,
// also when the import fails.
func TestImportKeepsTheNotesItDoesNotTake(t *testing.T) {
	t.Parallel()
	tenOClock := func(e spoolEntry) bool { return e.StartedAt.Hour() == 10 }
	for _, tc := range []struct {
		name      string
		failFirst bool
		first     int // notes the first import records
	}{
		{name: "records those it takes", first: 1},
		{name: "a failed import keeps them all", failFirst: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := notedFireFixture(t) // 10:00's fire noted
			f.fireUnrecorded(t, "2026-03-01T11:00:30Z")
			var st store.Store = f.st
			if tc.failFirst {
				st = failingAddRuns{f.st}
			}
			n, err := importSpool(context.Background(), st, f.m, 5*time.Minute, tenOClock)
			if n.total() != tc.first || (err != nil) != tc.failFirst {
				t.Fatalf("first import: %d notes, %v; want %d", n.total(), err, tc.first)
			}
			if left, _ := filepath.Glob(filepath.Join(f.m.LockDir, spoolName+".*")); len(left) != 0 {
				t.Errorf("left beside the notes file: %v", left)
			}
			if _, k, err := keptNotes(f.m); err != nil || k != 2-tc.first {
				t.Fatalf("kept %d notes, %v; want %d", k, err, 2-tc.first)
			}
			if n, err := importSpool(context.Background(), f.st, f.m, 5*time.Minute, nil); err != nil || n.total() != 2-tc.first {
				t.Fatalf("second import: %d notes, %v; want %d", n.total(), err, 2-tc.first)
			}
			if _, k, err := keptNotes(f.m); err != nil || k != 0 {
				t.Errorf("kept %d notes, %v; want none", k, err)
			}
			f.now = mustTime(t, "2026-03-01T11:30:00Z")
			if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 || ts.Replayed != 0 {
				t.Errorf("scan: missed %v, replayed %d; want none (10:00 and 11:00 ran, noted)", ts.Missed, ts.Replayed)
			}
			if got := f.job.runs(t); len(got) != 3 {
				t.Errorf("the job ran %d times, want 3 (09:00-11:00, each once): %v", len(got), got)
			}
			runs, err := f.st.SlotRuns(context.Background(), "job", mustTime(t, "2026-03-01T09:59:00Z"), mustTime(t, "2026-03-01T11:00:00Z"), 0)
			if err != nil || len(runs) != 2 {
				t.Errorf("10:00 and 11:00 have %d records, %v; want one each: %+v", len(runs), err, runs)
			}
		})
	}
}

// TestDeadSplitLeavesNothingBeside: a scan killed while it split a taken
// notes file (NOTES.PID holds every note, NOTES.PID.part the ones it kept
// for later) leaves both; the next import adopts NOTES.PID, records each
// note once, and removes the part, a copy of notes now recorded, which no
// import reads and a person merging it back would record twice.
func TestDeadSplitLeavesNothingBeside(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t) // 10:00's fire noted
	f.fireUnrecorded(t, "2026-03-01T11:00:30Z")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(f.m.LockDir, spoolName)
	taken := fmt.Sprintf("%s.%d", notes, dead.Process.Pid)
	if err := os.Rename(notes, taken); err != nil {
		t.Fatal(err)
	}
	entries, err := readSpool(taken, f.m.UID)
	if err != nil || len(entries) != 2 {
		t.Fatalf("read %d notes, %v; want 2", len(entries), err)
	}
	if _, part, err := splitNotes(taken, entries, func(e spoolEntry) bool { return e.StartedAt.Hour() == 10 }); err != nil || part != taken+".part" {
		t.Fatalf("split: part %q, %v", part, err)
	}
	if n, err := importSpool(context.Background(), f.st, f.m, 5*time.Minute, nil); err != nil || n.total() != 2 {
		t.Fatalf("import: %d notes, %v; want 2", n.total(), err)
	}
	if left, _ := filepath.Glob(notes + ".*"); len(left) != 0 {
		t.Errorf("left beside the notes file: %v", left)
	}
}
