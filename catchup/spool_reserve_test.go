package catchup

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestNoteReserve: the reserve is made whole (allocated, 0600) when it is
// missing, short or part spent, and in place of a symlink (never followed:
// what it points to is left as it is) or an empty directory at its path;
// it is spent a step at a time until none is left. Before, a symlink or a
// directory there was left, and the reserve was never made again: the
// next full disk lost its note, and its slot, which ran, ran again. So was
// a reserve left mode 000 or read-only (a chmod -R, a restore from a
// backup): its owner could not open it, to remake it or to spend it, and
// nothing said so; now it is made 0600 again.
func TestNoteReserve(t *testing.T) {
	for name, tc := range map[string]struct {
		before func(t *testing.T, path string)
	}{
		"missing": {before: func(*testing.T, string) {}},
		"short":   {before: func(t *testing.T, path string) { writeFile(t, path, "x") }},
		"sparse":  {before: func(t *testing.T, path string) { sparseFile(t, path, noteReserveSize) }},
		"part spent": {before: func(t *testing.T, path string) {
			makeNoteReserve(filepath.Dir(path))
			spendNoteReserve(filepath.Dir(path))
		}},
		"a symlink": {before: func(t *testing.T, path string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), path); err != nil {
				t.Fatal(err)
			}
		}},
		"a symlink to a file": {before: func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "kept")
			writeFile(t, target, "kept")
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if b, err := os.ReadFile(target); err != nil || string(b) != "kept" {
					t.Errorf("the symlink's target was changed: %q, %v", b, err)
				}
			})
		}},
		"mode 000":  {before: func(t *testing.T, path string) { unusableReserve(t, path, 0) }},
		"read-only": {before: func(t *testing.T, path string) { unusableReserve(t, path, 0o400) }},
		"an empty directory": {before: func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, noteReserveName)
			tc.before(t, path)
			makeNoteReserve(dir)
			fi, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() != noteReserveSize || allocated(fi) < noteReserveSize || fi.Mode().Perm() != 0o600 {
				t.Fatalf("reserve: size %d, %d bytes allocated, mode %v; want %d allocated, 0600", fi.Size(), allocated(fi), fi.Mode(), noteReserveSize)
			}
			steps := 0
			for spendNoteReserve(dir) {
				steps++
				if steps > noteReserveSize/noteReserveStep {
					t.Fatalf("the reserve was spent more than %d times", noteReserveSize/noteReserveStep)
				}
			}
			if steps != noteReserveSize/noteReserveStep {
				t.Errorf("the reserve was spent in %d steps, want %d", steps, noteReserveSize/noteReserveStep)
			}
		})
	}
}

// unusableReserve makes a whole reserve at path, then gives it mode: its
// owner, unless root, can then neither open it to remake it nor to spend it.
func unusableReserve(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	makeNoteReserve(filepath.Dir(path))
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// sparseFile makes a file of size bytes that holds no block.
func sparseFile(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// TestNoteReserveRemadeOnlyAfterAnImportThatRecorded: an import that could
// not record the notes (the disk still full) leaves a spent reserve as it
// is: grown back then, it took the space other fires had just freed for
// their own notes. The next import that records them makes it whole.
func TestNoteReserveRemadeOnlyAfterAnImportThatRecorded(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	if err := writeNote(f.m, spoolEntry{Task: "job", Slot: mustTime(t, "2026-03-01T10:00:00Z"), Trigger: store.TriggerSchedule,
		Host: f.m.Host, StartedAt: f.now, EndedAt: f.now, Error: "full"}); err != nil {
		t.Fatal(err)
	}
	spendNoteReserve(f.m.LockDir)
	size := func() int64 {
		fi, err := os.Stat(filepath.Join(f.m.LockDir, noteReserveName))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	if _, err := importSpool(context.Background(), failingAddRuns{f.st}, f.m, time.Minute, nil); err == nil {
		t.Fatal("the import recorded its notes into a ledger that fails")
	}
	if got := size(); got != noteReserveSize-noteReserveStep {
		t.Errorf("after a failed import the reserve is %d bytes, want %d: left spent", got, noteReserveSize-noteReserveStep)
	}
	if _, err := importSpool(context.Background(), f.st, f.m, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	if got := size(); got != noteReserveSize {
		t.Errorf("after an import that recorded its notes the reserve is %d bytes, want %d", got, noteReserveSize)
	}
}
