package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/catchup/catchup/internal/filetrust"
)

// ErrUnsafeLedger is returned by CheckPrivate.
var ErrUnsafeLedger = errors.New("ledger is writable by others")

// CheckPrivate refuses a ledger file or directory that another user could
// write: the ledger holds commands that scan executes, so such a ledger is a
// privilege escalation (the same rule as sshd's StrictModes). Both must be
// owned by uid and not group- or other-writable, and each directory above
// them owned by uid or root and writable by no one else unless sticky
// (checkAncestors). It looks at the real file and the real directory,
// through any symlink.
func CheckPrivate(path string, uid int) error {
	path = RealLedgerPath(path)
	for _, p := range []string{path, filepath.Dir(path)} {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("check ledger permissions: %w", err)
		}
		if err := checkPrivate(p, fi, uid); err != nil {
			return err
		}
	}
	return checkAncestors(filepath.Dir(path), uid)
}

// CheckPrivateDir is CheckPrivate of the directory that holds the ledger at
// path, for a caller that would create the ledger there: a directory that
// does not exist yet is no refusal (the ledger's open makes it private).
func CheckPrivateDir(path string, uid int) error {
	dir := filepath.Dir(RealLedgerPath(path))
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check ledger permissions: %w", err)
	}
	if err := checkPrivate(dir, fi, uid); err != nil {
		return err
	}
	return checkAncestors(dir, uid)
}

// checkAncestors refuses a directory above dir, up to /, that lets another
// user move dir aside and put theirs in its place: one owned by neither
// uid nor root, or one that others can write without the sticky bit (in
// /tmp only an entry's owner can rename it).
func checkAncestors(dir string, uid int) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("check ledger permissions: %w", err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid && st.Uid != 0 {
			return fmt.Errorf("%w: %s is owned by uid %d, neither uid %d running catchup nor root, and holds the ledger's directory %s: "+
				"its owner could put another ledger in its place; fix: keep the ledger in a directory of your own (--db or CATCHUP_DB)",
				ErrUnsafeLedger, p, st.Uid, uid, dir)
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
			return fmt.Errorf("%w: %s has mode %04o and holds the ledger's directory %s: another user could put another ledger in its place; "+
				"fix: chmod go-w %s, or keep the ledger in a directory of your own (--db or CATCHUP_DB)",
				ErrUnsafeLedger, p, filetrust.ModeBits(fi.Mode()), dir, p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// checkPrivate is CheckPrivate's rule for one file or directory p.
func checkPrivate(p string, fi os.FileInfo, uid int) error {
	shared := fi.IsDir() && fi.Mode()&os.ModeSticky != 0 && fi.Mode().Perm()&0o022 != 0
	if shared {
		// A shared directory (/tmp), whoever owns it: closing it
		// would break every other user of it, removing it more so.
		return fmt.Errorf("%w: %s has mode %04o; fix: it is a shared directory; keep the ledger in a directory of your own (--db or CATCHUP_DB)",
			ErrUnsafeLedger, p, filetrust.ModeBits(fi.Mode()))
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != uid {
		// Another user's directory is no place for this user's
		// ledger, and taking it over (chown) would keep what that
		// user put in it.
		fix := fmt.Sprintf("remove it if you did not put it there (rm %s), else chown %d %s", p, uid, p)
		if fi.IsDir() {
			fix = fmt.Sprintf("keep the ledger in a directory of your own (--db or CATCHUP_DB), or remove %s if you did not put it there", p)
		}
		return fmt.Errorf("%w: %s is owned by uid %d, not by uid %d running catchup; fix: %s",
			ErrUnsafeLedger, p, st.Uid, uid, fix)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		fix := "chmod 600 " + p
		if fi.IsDir() {
			fix = "chmod 700 " + p
		}
		return fmt.Errorf("%w: %s has mode %04o; fix: %s", ErrUnsafeLedger, p, filetrust.ModeBits(fi.Mode()), fix)
	}
	return nil
}
