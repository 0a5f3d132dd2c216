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

// TestNoteOutlivesAnUnwritableLockDir: a fire that ran while the ledger
// could not record it leaves a note so that the next scan does not run its
// slot again. The faults that stop the ledger (a full or read-only
// filesystem) stop the lock directory beside it too: the note then goes to
// the spare note directory (a tmpfs), and the next scan records it from
// there. With no place for the note, the fire says what that costs.
func TestNoteOutlivesAnUnwritableLockDir(t *testing.T) {
	t.Parallel()
	for name, spare := range map[string]bool{"spare directory": true, "no spare directory": false} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			if res := f.run(t, f.request(t)); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			// The lock directory cannot be made: a file stands at its path.
			if err := os.RemoveAll(f.m.LockDir); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.m.LockDir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			var said bytes.Buffer
			m := f.m
			m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:00:30Z") }
			m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
			if spare {
				m.NoteDir = filepath.Join(t.TempDir(), "notes")
				f.m.NoteDir = m.NoteDir
			}
			res, err := Run(context.Background(), nil, errors.New("disk I/O error"), m, f.request(t))
			if err != nil || !res.Ran {
				t.Fatalf("unrecorded fire: %+v, %v; want it run", res, err)
			}
			if err := os.Remove(f.m.LockDir); err != nil { // the disk is fixed
				t.Fatal(err)
			}
			f.now = mustTime(t, "2026-03-01T10:30:00Z")
			ts := f.scan(t, scanRequest())
			got := strings.Join(f.job.runs(t), "|")
			if spare {
				if want := strings.Join(hours("schedule", 9, 10), "|"); got != want || ts.Replayed != 0 {
					t.Errorf("the job ran for %v (scan replayed %d), want %v: 10:00 once, noted", got, ts.Replayed, want)
				}
				return
			}
			if !strings.Contains(said.String(), "cannot keep a note of this fire") ||
				!strings.Contains(said.String(), "run slot 2026-03-01T10:00:00Z of job again") {
				t.Errorf("a fire whose note was lost said %q; want it to say the next scan runs 10:00 again", said.String())
			}
		})
	}
}

// TestSpareNoteDirUnderAnotherUsersDir: a spare note directory in a
// directory another user owns could be swapped for a link to anywhere
// between the check and the write (root's notes landing in a place of the
// user's choosing); it is refused, and the fire says why its note is lost.
func TestSpareNoteDirUnderAnotherUsersDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a directory to another user")
	}
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	parent := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(parent, 54321, -1); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(f.m.LockDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.m.LockDir, nil, 0o600); err != nil { // no lock directory either
		t.Fatal(err)
	}
	var said bytes.Buffer
	m := f.m
	m.NoteDir = filepath.Join(parent, "catchup")
	m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
	if res, err := Run(context.Background(), nil, errors.New("disk I/O error"), m, f.request(t)); err != nil || !res.Ran {
		t.Fatalf("unrecorded fire: %+v, %v; want it run", res, err)
	}
	if _, err := os.Lstat(m.NoteDir); !os.IsNotExist(err) {
		t.Errorf("the note directory was made under another user's directory: %v", err)
	}
	if got := said.String(); !strings.Contains(got, "cannot keep a note of this fire") || !strings.Contains(got, "owned by uid 54321") {
		t.Errorf("the fire said %q; want its note lost, and why", got)
	}
}

// TestNoteNotThroughAPlantedLockDir: a lock directory that is a symlink
// (planted where the ledger's directory lets others write) is refused for
// the lock, and for the fire's note too: the note goes to the spare note
// directory, never into the directory the symlink points at (another
// ledger's lock directory, where it could make a slot look done).
func TestNoteNotThroughAPlantedLockDir(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(f.m.LockDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, f.m.LockDir); err != nil {
		t.Fatal(err)
	}
	m := f.m
	m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:00:30Z") }
	m.NoteDir = filepath.Join(t.TempDir(), "notes")
	var said bytes.Buffer
	m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
	if res, err := Run(context.Background(), nil, errors.New("disk I/O error"), m, f.request(t)); err != nil || !res.Ran {
		t.Fatalf("unrecorded fire: %+v, %v; want it run", res, err)
	}
	if _, err := os.Lstat(filepath.Join(target, spoolName)); err == nil {
		t.Errorf("wrote the note through the planted lock directory")
	}
	spare, _ := spareNotes(m)
	if _, err := os.Stat(spare); err != nil {
		t.Errorf("no note in the spare note directory: %v; said:\n%s", err, said.String())
	}
}
