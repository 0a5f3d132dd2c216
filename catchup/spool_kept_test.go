package catchup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestScanKeepsNotesItCannotRecord: a scan that cannot record this host's
// notes of unrecorded fires (the ledger failed part-way) counts them as the
// next scan will record them: the slot whose fire ran unrecorded is not
// replayed (it would run twice), the scan says that it kept the notes, and
// the next scan records them, replaying nothing.
func TestScanKeepsNotesItCannotRecord(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t)
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	rep, err := Scan(context.Background(), fullLedger{f.st}, f.m, scanRequest())
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	if len(rep.Tasks) != 1 || len(rep.Tasks[0].Missed) != 0 || rep.Tasks[0].Replayed != 0 {
		t.Errorf("scan that could not record the notes: %+v; want nothing missed (10:00 ran, noted)", rep.Tasks)
	}
	if rep.NotesKept == nil || !strings.Contains(rep.NotesKept.Error(), "database or disk is full") {
		t.Errorf("NotesKept = %v; want why the notes are kept", rep.NotesKept)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Fatalf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
	}
	f.now = mustTime(t, "2026-03-01T10:40:00Z")
	rep, err = Scan(context.Background(), f.st, f.m, scanRequest())
	if err != nil || rep.NotesKept != nil || len(rep.Tasks[0].Missed) != 0 {
		t.Fatalf("next scan: %+v, %v; want the notes recorded, nothing missed", rep, err)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2: %v", len(got), got)
	}
	done := 0
	for _, r := range f.history(t) {
		if r.Slot.Equal(mustTime(t, "2026-03-01T10:00:00Z")) {
			done++
		}
	}
	if done != 1 {
		t.Errorf("slot 10:00 has %d records, want 1 (the note's)", done)
	}
}

// TestScanRefusesNotesItCannotTrust: a notes file that others could have
// written is refused (its notes could make a slot look done), and a scan
// then replays nothing: the notes may stand for any slot, and a slot they
// stand for would run twice. The refusal names the file and the fix; the
// file stays where it is, as it is, for every later scan to refuse until
// it is fixed, then its notes are recorded and nothing runs twice.
func TestScanRefusesNotesItCannotTrust(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t)
	notes := filepath.Join(f.m.LockDir, spoolName)
	if err := os.Chmod(notes, 0o660); err != nil {
		t.Fatal(err)
	}
	for i, at := range []string{"2026-03-01T10:30:00Z", "2026-03-01T11:30:00Z"} {
		f.now = mustTime(t, at)
		_, err := Scan(context.Background(), f.st, f.m, scanRequest())
		if err == nil || !strings.Contains(err.Error(), notes) || !strings.Contains(err.Error(), "chmod 600 "+notes) ||
			strings.Contains(err.Error(), "remove it") {
			t.Fatalf("scan %d with group-writable notes: %v; want a refusal naming %s and chmod 600", i+1, err, notes)
		}
		if !errors.Is(err, ErrNotesRefused) {
			t.Errorf("scan %d: %v does not wrap ErrNotesRefused", i+1, err)
		}
		if fi, err := os.Lstat(notes); err != nil || fi.Mode().Perm() != 0o660 {
			t.Fatalf("scan %d: the notes file: %v, %v; want it left as it was", i+1, fi, err)
		}
		if got := f.job.runs(t); len(got) != 2 {
			t.Fatalf("scan %d: the job ran %d times, want 2 (nothing replayed): %v", i+1, len(got), got)
		}
	}
	if err := os.Chmod(notes, 0o600); err != nil {
		t.Fatal(err)
	}
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 1 || ts.Replayed != 1 {
		t.Errorf("scan once fixed: missed %v, replayed %d; want 11:00 alone (10:00 ran, noted)", ts.Missed, ts.Replayed)
	}
	want := append(hours("schedule", 9, 10), hours("replay", 11)...)
	if got := f.job.runs(t); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the job ran for %v, want %v: each slot once", got, want)
	}
}

// TestBackfillKeepsNotesItCannotRecord: backfill, like scan, counts the
// notes it could not record as done slots, and refuses notes it cannot
// trust, running nothing.
func TestBackfillKeepsNotesItCannotRecord(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t)
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	req := BackfillRequest{Tasks: []string{"job"}, From: mustTime(t, "2026-03-01T09:00:00Z"),
		To: mustTime(t, "2026-03-01T10:00:00Z"), Only: "missing", Order: "oldest", Concurrency: 1}
	notes := filepath.Join(f.m.LockDir, spoolName)
	if err := os.Chmod(notes, 0o660); err != nil {
		t.Fatal(err)
	}
	if _, err := Backfill(context.Background(), f.st, f.m, req); err == nil || !errors.Is(err, ErrNotesRefused) {
		t.Errorf("backfill with group-writable notes: %v; want refused", err)
	}
	os.Chmod(notes, 0o600)
	if _, err := Backfill(context.Background(), fullLedger{f.st}, f.m, req); err != nil {
		t.Fatal(err)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
	}
	if _, err := os.Lstat(notes); err != nil {
		t.Errorf("the notes backfill could not record: %v; want them kept", err)
	}
}

// fullLedger is a ledger whose disk is full: it records no run (scan's
// empty batch of expiries, which writes nothing, still goes through).
type fullLedger struct{ store.Store }

func (l fullLedger) AddRuns(ctx context.Context, runs []store.Run) ([]int64, error) {
	if len(runs) == 0 {
		return l.Store.AddRuns(ctx, runs)
	}
	return nil, errors.New("database or disk is full")
}
