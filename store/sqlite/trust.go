package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// trustLedgerFiles refuses a ledger that another user planted where this
// user's is expected (a shared directory): the ledger file, its -wal and
// -shm, must each be owned by uid or by root and not be symlinks; a symlink
// at the path given must be this user's or root's. Otherwise a planted
// ledger could say that a slot already succeeded, or hold commands for scan
// to run. It returns the real path to open.
func trustLedgerFiles(path string, uid int) (string, error) {
	if err := filetrust.PlantedLink("ledger", filepath.Dir(path), uid); err != nil {
		return "", err // a directory on its path another user's symlink
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&os.ModeSymlink != 0:
		if o := filetrust.Owner(fi); o != uid && o != 0 {
			return "", &filetrust.Refusal{Name: "ledger " + path,
				Reason: fmt.Sprintf("it is a symlink owned by uid %d, not by uid %d running catchup (planted by another user?)", o, uid),
				Fix:    "remove it if you did not put it there: rm " + path}
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return "", openError(path, err)
	}
	real := store.RealLedgerPath(path)
	for _, p := range []string{real, real + "-wal", real + "-shm"} {
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", openError(p, err)
		}
		if err := filetrust.Owned("ledger "+p, p, fi, uid); err != nil {
			return "", err
		}
	}
	return real, nil
}

// openError is the error of a look at ledger file p that failed with err.
// A path through a regular file (ENOTDIR: --db backup.cron/x.db) names
// that file and the fix, not the whole path lstat(2) was given.
func openError(p string, err error) error {
	if errors.Is(err, syscall.ENOTDIR) {
		for dir := filepath.Dir(p); filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
			if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
				return &hintedError{plain: fmt.Errorf("open ledger %s: %w", p, err),
					hinted: fmt.Sprintf("open ledger %s: %s is a file, not a directory; fix: give --db, CATCHUP_DB or CATCHUP_STATE_DIR a path whose directories are directories", p, dir)}
			}
		}
	}
	return fmt.Errorf("open ledger %s: %w", p, err)
}
