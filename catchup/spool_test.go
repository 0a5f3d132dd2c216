package catchup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReadSpoolRefusesForeignNotes: a notes file another user could have
// written is refused (it could make a slot look done), and a bad line is
// skipped without losing the others.
func TestReadSpoolRefusesForeignNotes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, spoolName)
	notes := `{"task":"settle","trigger":"schedule","ran":false,"error":"x"}` + "\nnot json\n" +
		`{"task":"../etc","ran":true}` + "\n" + `{"task":"other","ran":true,"status":"succeeded"}` + "\n"
	if err := os.WriteFile(path, []byte(notes), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readSpool(path, os.Geteuid())
	if err != nil || len(got) != 2 || got[0].Task != "settle" || got[1].Task != "other" {
		t.Fatalf("readSpool = %+v, %v; want settle and other", got, err)
	}
	if err := os.Chmod(path, 0o622); err != nil {
		t.Fatal(err)
	}
	if _, err := readSpool(path, os.Geteuid()); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("group/other-writable notes: %v, want refused", err)
	}
	os.Chmod(path, 0o600)
	if _, err := readSpool(path, os.Geteuid()+1); err == nil {
		t.Error("notes owned by another user were read")
	}
}

// TestSpooledFireKeepsItsSlot: a fire that runs while the ledger cannot be
// reached is noted for the next scan under the slot it was fired for, even
// when its job ends after the next slot has come. Noted under the slot of
// its end, the fire would make that next slot look done (it would never
// run) and its own slot look missed (it would run twice).
func TestSpooledFireKeepsItsSlot(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	moved := filepath.Join(f.job.dir, "moved")
	m := f.m
	m.Now = func() time.Time { // the job runs from 10:00:30 past 11:00
		if _, err := os.Stat(moved); err == nil {
			return mustTime(t, "2026-03-01T11:00:40Z")
		}
		return mustTime(t, "2026-03-01T10:00:30Z")
	}
	req := f.request(t)
	req.Argv = []string{"sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> runs.log; touch moved`}
	res, err := Run(context.Background(), nil, errors.New("ledger unreachable"), m, req)
	if err != nil || res.ExitCode != 0 || !res.Ran {
		t.Fatalf("unrecorded fire: %+v, %v; want it run, exit 0", res, err)
	}
	f.now = mustTime(t, "2026-03-01T11:30:00Z")
	ts := f.scan(t, scanRequest())
	if len(ts.Missed) != 1 || !ts.Missed[0].Equal(mustTime(t, "2026-03-01T11:00:00Z")) || ts.Replayed != 1 {
		t.Errorf("scan: missed %v, replayed %d; want 11:00 missed and replayed (10:00 ran, noted)", ts.Missed, ts.Replayed)
	}
	want := hours("schedule", 9, 10)
	want = append(want, hours("replay", 11)...)
	if got := f.job.runs(t); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the job ran for %v, want %v: each slot once", got, want)
	}
}

// TestSpooledRunByHandStandsForNoSlot: a run --manual made while the ledger
// cannot be reached, a minute after a slot cron did not fire, is noted as a
// run by hand: recorded late, it does not stand for that slot, which scan
// still replays.
func TestSpooledRunByHandStandsForNoSlot(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	m := f.m
	m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:01:00Z") }
	req := f.request(t)
	req.Manual = true
	res, err := Run(context.Background(), nil, errors.New("ledger unreachable"), m, req)
	if err != nil || res.ExitCode != 0 || !res.Ran {
		t.Fatalf("unrecorded run by hand: %+v, %v; want it run, exit 0", res, err)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	ts := f.scan(t, scanRequest())
	if len(ts.Missed) != 1 || !ts.Missed[0].Equal(mustTime(t, "2026-03-01T10:00:00Z")) || ts.Replayed != 1 {
		t.Errorf("scan: missed %v, replayed %d; want 10:00 missed and replayed (the run by hand stands for no slot)", ts.Missed, ts.Replayed)
	}
	want := append(hours("schedule", 9), "- manual")
	want = append(want, hours("replay", 10)...)
	if got := f.job.runs(t); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the job ran for %v, want %v", got, want)
	}
}

// failingAddRuns is a ledger that cannot record runs.
type failingAddRuns struct{ store.Store }

func (failingAddRuns) AddRuns(context.Context, []store.Run) ([]int64, error) {
	return nil, errors.New("database or disk is full")
}

// TestSpoolSurvivesFailedImports: notes that a scan could not record are
// kept for the next scan, however many scans fail, and the fires noted
// meanwhile are kept too. Lost, the fires they stand for would be replayed:
// run twice.
func TestSpoolSurvivesFailedImports(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t)
	for i := range 2 {
		if _, err := importSpool(context.Background(), failingAddRuns{f.st}, f.m, 5*time.Minute, nil); err == nil {
			t.Fatalf("import %d into a full ledger: no error", i+1)
		}
		if i == 0 {
			f.fireUnrecorded(t, "2026-03-01T11:00:30Z")
		}
	}
	n, err := importSpool(context.Background(), f.st, f.m, 5*time.Minute, nil)
	if err != nil || n.total() != 2 {
		t.Fatalf("import into a working ledger: %d fires, %v; want both", n.total(), err)
	}
	f.now = mustTime(t, "2026-03-01T11:30:00Z")
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 {
		t.Errorf("scan: missed %v; want none (10:00 and 11:00 ran, noted)", ts.Missed)
	}
	if got := f.job.runs(t); len(got) != 3 {
		t.Errorf("the job ran %d times, want 3 (09:00-11:00, each once): %v", len(got), got)
	}
}

// TestSpoolTakenByADeadScan: a scan takes the notes file (renaming it to
// NOTES.PID) before it records the notes; killed in between, it leaves
// them under its pid. The next scan takes them back once that process is
// gone: the fire that ran unrecorded is not run again.
func TestSpoolTakenByADeadScan(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(f.m.LockDir, spoolName)
	if err := os.Rename(notes, fmt.Sprintf("%s.%d", notes, dead.Process.Pid)); err != nil {
		t.Fatal(err)
	}
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 {
		t.Errorf("scan: missed %v; want none (10:00 ran, noted, its notes taken by a scan that died)", ts.Missed)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
	}
}

// TestBackfillReadsTheNotes: a fire that ran unrecorded is noted for the
// next scan; a backfill of its slot before that scan must not run it
// again: backfill records the notes first, as scan does.
func TestBackfillReadsTheNotes(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t)
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	_, err := Backfill(context.Background(), f.st, f.m, BackfillRequest{Tasks: []string{"job"},
		From: mustTime(t, "2026-03-01T09:00:00Z"), To: mustTime(t, "2026-03-01T10:00:00Z"), Only: "missing", Order: "oldest", Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.job.runs(t); len(got) != 2 {
		t.Errorf("the job ran %d times, want 2 (09:00 and 10:00, each once): %v", len(got), got)
	}
}

// TestSpoolTakenUnderOurPid: notes left under this process's own pid (an
// earlier process with the same pid, a container's PID 1 killed while it
// imported) are merged back, never overwritten by the new notes.
func TestSpoolTakenUnderOurPid(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	f.run(t, f.request(t))
	f.fireUnrecorded(t, "2026-03-01T10:00:30Z")
	notes := filepath.Join(f.m.LockDir, spoolName)
	if err := os.Rename(notes, fmt.Sprintf("%s.%d", notes, f.m.PID)); err != nil {
		t.Fatal(err)
	}
	f.fireUnrecorded(t, "2026-03-01T11:00:30Z")
	f.now = mustTime(t, "2026-03-01T11:30:00Z")
	if ts := f.scan(t, scanRequest()); len(ts.Missed) != 0 {
		t.Errorf("scan: missed %v; want none", ts.Missed)
	}
	if got := f.job.runs(t); len(got) != 3 {
		t.Errorf("the job ran %d times, want 3 (09:00-11:00, each once): %v", len(got), got)
	}
}

// fireUnrecorded fires the task at at while the ledger cannot be reached:
// the job runs, and a note is kept for the next scan.
func (f *runFixture) fireUnrecorded(t *testing.T, at string) {
	t.Helper()
	m := f.m
	m.Now = func() time.Time { return mustTime(t, at) }
	if res, err := Run(context.Background(), nil, errors.New("ledger unreachable"), m, f.request(t)); err != nil || !res.Ran {
		t.Fatalf("unrecorded fire at %s: %+v, %v", at, res, err)
	}
}

// notedFireFixture is a task of hourly slots whose 09:00 fire is recorded
// and whose 10:00 fire ran while the ledger was unreachable: noted on the
// host, not recorded.
func notedFireFixture(t *testing.T) *runFixture {
	t.Helper()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.fireUnrecorded(t, "2026-03-01T10:00:30Z")
	return f
}

// TestImportCountsLockRefusedFiresApart: an import counts the fires that
// ran nothing for want of this host's lock apart from those that could not
// reach the ledger (the scan says which, and the ledger was fine for the
// first), and counts both.
func TestImportCountsLockRefusedFiresApart(t *testing.T) {
	t.Parallel()
	f := notedFireFixture(t) // 10:00's fire, noted: the ledger could not be reached
	path := filepath.Join(f.m.LockDir, spoolName)
	entries, err := readSpool(path, os.Geteuid())
	if err != nil || len(entries) != 1 {
		t.Fatalf("the fixture's notes: %v, %v; want one", entries, err)
	}
	e := entries[0]
	e.Slot, e.StartedAt, e.EndedAt = e.Slot.Add(time.Hour), e.StartedAt.Add(time.Hour), e.EndedAt.Add(time.Hour)
	e.Ran, e.Status, e.ExitCode, e.LockFault = false, "", nil, true
	if err := writeNote(f.m, e); err != nil {
		t.Fatal(err)
	}
	n, err := importSpool(context.Background(), f.st, f.m, 5*time.Minute, nil)
	// No line of notes before a registration: the task registered first.
	if err != nil || len(n.before) != 0 || n.unreached != 1 || n.lockRefused != 1 || n.rowLocked != 0 || n.lockRan != 0 {
		t.Fatalf("import: %+v, %v; want 1 unreached and 1 lock-refused", n, err)
	}
}
