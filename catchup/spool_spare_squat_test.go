package catchup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSquattedSpareNoteDir: another user made the spare note directory
// first, in a shared sticky directory (/dev/shm), where this user can
// neither remove nor rename it. A fire whose ledger and lock directory
// cannot take its note (a full or read-only filesystem) keeps it in a
// private directory of its own beside it; the readers and the next scan
// find it there, and the slot that ran is not run again. The warning names
// who made the squatted directory, who can remove it, and where notes go
// meanwhile.
func TestSquattedSpareNoteDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make a directory of another user's")
	}
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	shm := filepath.Join(t.TempDir(), "shm")
	if err := os.Mkdir(shm, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shm, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	squat := filepath.Join(shm, "catchup-0")
	if err := os.Mkdir(squat, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(squat, 54321, 54321); err != nil {
		t.Fatal(err)
	}
	// A stand-in's name, made by the same other user: never this user's.
	decoy := squat + ".00000000"
	if err := os.Mkdir(decoy, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(decoy, 54321, 54321); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(f.m.LockDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.m.LockDir, nil, 0o600); err != nil { // the lock directory cannot take it
		t.Fatal(err)
	}
	var said bytes.Buffer
	m := f.m
	m.NoteDir = squat
	m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:00:30Z") }
	m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
	f.m.NoteDir, f.m.Notice = m.NoteDir, m.Notice
	if res, err := Run(context.Background(), nil, errors.New("disk I/O error"), m, f.request(t)); err != nil || !res.Ran {
		t.Fatalf("unrecorded fire: %+v, %v; want it run", res, err)
	}
	if got := said.String(); strings.Contains(got, "cannot keep a note") ||
		!strings.Contains(got, "made by uid 54321") || !strings.Contains(got, "ask root to remove it") {
		t.Errorf("the fire said %q; want its note kept, and who can remove the squatted directory", got)
	}
	for _, d := range []string{squat, decoy} {
		if entries, _ := os.ReadDir(d); len(entries) != 0 {
			t.Errorf("a note went into %s, another user's: %v", d, entries)
		}
	}
	if err := os.Remove(f.m.LockDir); err != nil { // the disk is fixed
		t.Fatal(err)
	}
	if n := readPendingNotes(m); len(n.fires) != 1 || n.refused != nil {
		t.Errorf("the readers find %d notes (refused: %v), want the fire's one", len(n.fires), n.refused)
	}
	// As root's scan reads a user's notes (spool_users.go), within a budget.
	if _, k, err := keptNotesOf(m, &notesBudget{bytes: 1 << 20, files: 8}); k != 1 || err != nil {
		t.Errorf("a user's notes as root's scan reads them: %d, %v; want the fire's one", k, err)
	}
	said.Reset()
	f.now = mustTime(t, "2026-03-01T10:30:00Z")
	ts := f.scan(t, scanRequest())
	if got, want := strings.Join(f.job.runs(t), "|"), strings.Join(hours("schedule", 9, 10), "|"); got != want || ts.Replayed != 0 {
		t.Errorf("the job ran for %v (scan replayed %d), want %v: 10:00 once, noted", got, ts.Replayed, want)
	}
	if got := said.String(); !strings.Contains(got, "made by uid 54321") || !strings.Contains(got, "meanwhile") {
		t.Errorf("the scan said %q; want who made the squatted directory and where notes go meanwhile", got)
	}
}
