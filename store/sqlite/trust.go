package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
		return "", fmt.Errorf("open ledger %s: %w", path, err)
	}
	real := store.RealLedgerPath(path)
	for _, p := range []string{real, real + "-wal", real + "-shm"} {
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("open ledger %s: %w", p, err)
		}
		if err := filetrust.Owned("ledger "+p, p, fi, uid); err != nil {
			return "", err
		}
	}
	return real, nil
}
