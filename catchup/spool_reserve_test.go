package catchup

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNoteReserve: the reserve is made whole (allocated, 0600) when it is
// missing, short or part spent; it is spent a step at a time until none is
// left; a symlink at its path is neither followed nor spent.
func TestNoteReserve(t *testing.T) {
	for name, tc := range map[string]struct {
		before    func(t *testing.T, path string)
		wantWhole bool
	}{
		"missing": {before: func(*testing.T, string) {}, wantWhole: true},
		"short":   {before: func(t *testing.T, path string) { writeFile(t, path, "x") }, wantWhole: true},
		"sparse":  {before: func(t *testing.T, path string) { sparseFile(t, path, noteReserveSize) }, wantWhole: true},
		"part spent": {before: func(t *testing.T, path string) {
			makeNoteReserve(filepath.Dir(path))
			spendNoteReserve(filepath.Dir(path))
		}, wantWhole: true},
		"a symlink": {before: func(t *testing.T, path string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), path); err != nil {
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
			if !tc.wantWhole {
				if fi.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("the symlink at the reserve's path was replaced: %v", fi.Mode())
				}
				if spendNoteReserve(dir) {
					t.Error("a symlink at the reserve's path was spent as a reserve")
				}
				return
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
