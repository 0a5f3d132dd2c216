package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestBackupWritesOnlyTheFileItCreated: the snapshot goes into the file
// backup created at PATH, never to what PATH names later. Another user who
// can write PATH's directory (a shared backup directory, a user's home
// that root backs up into) swapped the new file for a symlink to an empty
// file of theirs before SQLite opened PATH by name: SQLite followed it, and
// that user read root's ledger (reproduced with a racing process).
func TestBackupWritesOnlyTheFileItCreated(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	shared := t.TempDir()
	dest, victim := filepath.Join(shared, "backup.db"), filepath.Join(shared, "theirs.db")
	if err := os.WriteFile(victim, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	backupCreated = func(path string) {
		if err := os.Remove(path); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(victim, path); err != nil {
			t.Error(err)
		}
	}
	defer func() { backupCreated = nil }()
	err = s.Backup(ctx, dest)
	if fi, serr := os.Stat(victim); serr != nil || fi.Size() != 0 {
		t.Errorf("the snapshot went through the symlink planted at the backup's path into %s (%v)", victim, serr)
	}
	if err == nil {
		t.Error("Backup succeeded, but its path no longer names the file it wrote: want an error saying so")
	}
	if fi, lerr := os.Lstat(dest); lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the planted symlink at the backup's path was removed or replaced: %v", lerr)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("left behind beside the ledger: %q", left)
	}
}
