package store

import (
	"path/filepath"

	"github.com/catchup/catchup/internal/filetrust"
)

// RealLedgerPath is the file a SQLite ledger path names, through any
// symlinks (through the directory's, when the file does not exist yet).
// One ledger has one real path, whatever spelling reaches it: its lock
// directory sits next to that.
func RealLedgerPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return path
}

// LedgerPathFor is RealLedgerPath as user uid may follow it: a symlink at
// path that another user (not root) owns is not followed, since opening the
// ledger refuses it, and nothing is created beside what it points at.
func LedgerPathFor(path string, uid int) string {
	if filetrust.PlantedLink("ledger", path, uid) != nil {
		return path
	}
	return RealLedgerPath(path)
}
