package catchup

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// goneTaker takes this host's notes file as a scan does (NOTES.PID), for a
// pid whose process has exited: a scan killed while it recorded them.
func goneTaker(t *testing.T, notes string) string {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	taken := takenNotes(notes, cmd.Process.Pid)
	if err := os.Rename(notes, taken); err != nil {
		t.Fatal(err)
	}
	return taken
}

// TestScanRecordsNotesAKilledScanTook: notes a killed scan had taken are
// recorded by the next scan, and the slot they say ran is not replayed.
func TestScanRecordsNotesAKilledScanTook(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t)
	taken := goneTaker(t, filepath.Join(f.m.LockDir, spoolName))
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 || ts.Replayed != 0 {
		t.Errorf("scan: missed %v, replayed %d; want nothing (10:00 ran, noted)", ts.Missed, ts.Replayed)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2: %v", len(got), got)
	}
	if _, err := os.Lstat(taken); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the taken notes %s: %v; want recorded and removed", taken, err)
	}
}

// TestScanRefusesTakenNotesItCannotTrust: notes a killed scan had taken,
// then made writable by others, are refused as the notes file itself is:
// the scan runs nothing (the notes may stand for any slot), names the file
// and the fix, and leaves it as it is, for every later scan to refuse. A
// scan that only warned and went on replayed the slot the notes say ran.
func TestScanRefusesTakenNotesItCannotTrust(t *testing.T) {
	t.Parallel()
	for _, ledger := range []string{"reachable", "full"} {
		t.Run(ledger, func(t *testing.T) {
			f := notedFireFixture(t)
			taken := goneTaker(t, filepath.Join(f.m.LockDir, spoolName))
			if err := os.Chmod(taken, 0o660); err != nil {
				t.Fatal(err)
			}
			var st store.Store = f.st
			if ledger == "full" {
				st = fullLedger{f.st}
			}
			for i, at := range []string{"2026-03-01T10:30:00Z", "2026-03-01T11:30:00Z"} {
				f.now = mustTime(t, at)
				_, err := Scan(context.Background(), st, f.m, scanRequest())
				if !errors.Is(err, ErrNotesRefused) || !strings.Contains(err.Error(), "chmod 600 "+taken) {
					t.Fatalf("scan %d with group-writable taken notes: %v; want refused, naming chmod 600 %s", i+1, err, taken)
				}
				if fi, err := os.Lstat(taken); err != nil || fi.Mode().Perm() != 0o660 {
					t.Fatalf("scan %d: the taken notes: %v, %v; want them left as they were", i+1, fi, err)
				}
				if got := f.job.runs(t); len(got) != 2 {
					t.Fatalf("scan %d: the job ran %d times, want 2 (nothing replayed): %v", i+1, len(got), got)
				}
			}
		})
	}
}

// TestScanCountsNotesAnotherScanHolds: a scan that cannot record the notes
// (its ledger is full) while another scan holds some of them (NOTES.PID of
// a live process, recording them or about to put them back) counts those
// too: the slot they say ran is not replayed.
func TestScanCountsNotesAnotherScanHolds(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t)
	notes := filepath.Join(f.m.LockDir, spoolName)
	if err := os.Rename(notes, takenNotes(notes, os.Getppid())); err != nil {
		t.Fatal(err)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	rep, err := Scan(context.Background(), fullLedger{f.st}, f.m, scanRequest())
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	if len(rep.Tasks) != 1 || len(rep.Tasks[0].Missed) != 0 || rep.Tasks[0].Replayed != 0 {
		t.Errorf("scan: %+v; want nothing missed (10:00 ran, its note held by another scan)", rep.Tasks)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2: %v", len(got), got)
	}
}

// TestScanRecordsAnOlderCatchupsFailedNotes: an older catchup moved the
// notes it could not record to NOTES.failed, which nothing read: their
// slots looked missed and ran again. A scan records them as it records
// the notes file.
func TestScanRecordsAnOlderCatchupsFailedNotes(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t)
	notes := filepath.Join(f.m.LockDir, spoolName)
	if err := os.Rename(notes, notes+".failed"); err != nil {
		t.Fatal(err)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 || ts.Replayed != 0 {
		t.Errorf("scan: missed %v, replayed %d; want nothing (10:00 ran, noted)", ts.Missed, ts.Replayed)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2: %v", len(got), got)
	}
	if _, err := os.Lstat(notes + ".failed"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old failed notes: %v; want recorded and removed", err)
	}
}
