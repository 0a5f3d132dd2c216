package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/catchup/catchup/internal/filetrust"
)

// hintedError is an error creating the ledger, or its directory, that
// says which directory this user may not write and the fix. Unhinted is
// the error without that hint, for a caller that knows the cause better
// (cmd's HOME=/ hint).
type hintedError struct {
	plain  error
	hinted string
}

func (e *hintedError) Error() string   { return e.hinted }
func (e *hintedError) Unwrap() error   { return e.plain }
func (e *hintedError) Unhinted() error { return e.plain }

// cannotCreate is the error of op ("create ledger PATH") that failed with
// err creating target (the new ledger's temporary file, or a directory
// that ledgerDir, the ledger's directory, needs). When this user may not
// write the nearest directory that exists on the way, or it is on a
// read-only file system, it names that directory and the fix, and not the
// temporary file, which the operator never named.
func cannotCreate(op, target, ledgerDir string, err error) error {
	plain := fmt.Errorf("%s: %w", op, err)
	if !errors.Is(err, os.ErrPermission) && !errors.Is(err, syscall.EROFS) {
		return cannotCreateIn(op, target, ledgerDir, plain, err)
	}
	dir := filepath.Dir(target)
	for {
		if _, serr := os.Stat(dir); serr == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	bare := err
	var pe *os.PathError
	if errors.As(err, &pe) {
		bare = pe.Err
	}
	const elsewhere = "or point catchup at a ledger this user can write (--db, CATCHUP_DB or CATCHUP_STATE_DIR)"
	hint := ""
	fi, serr := os.Stat(dir)
	uid := os.Geteuid()
	switch {
	case errors.Is(err, syscall.EROFS):
		hint = fmt.Sprintf("%s is on a read-only file system; fix: remount it read-write, %s", dir, elsewhere)
	case serr != nil:
		return plain
	case dir == ledgerDir:
		// The ledger's own directory: as for an existing ledger.
		hint = accessHint(filepath.Join(dir, ".catchup-create"))
	default:
		fix := fmt.Sprintf("chmod u+w %s", dir)
		if filetrust.Owner(fi) != uid {
			// Not the ledger's directory: never chown a directory above it.
			fix = fmt.Sprintf("as uid %d, mkdir -p %s && chown %d %s", filetrust.Owner(fi), ledgerDir, uid, ledgerDir)
		}
		hint = fmt.Sprintf("the directory %s (owner %s, mode %04o) cannot be written by %s running catchup; fix: %s, %s",
			dir, filetrust.Describe(filetrust.Owner(fi)), filetrust.ModeBits(fi.Mode()), filetrust.Describe(uid), fix, elsewhere)
	}
	return &hintedError{plain: plain, hinted: fmt.Sprintf("%s: %v; %s", op, bare, hint)}
}

// cannotCreateIn is cannotCreate's error (plain) for another cause than
// the rights to a directory: creating the new ledger's temporary file in
// an existing directory that takes none (/proc, ENOENT) names that
// directory and the fix, not the temporary file. Others stay plain.
func cannotCreateIn(op, target, ledgerDir string, plain, err error) error {
	var pe *os.PathError
	if target == ledgerDir || !errors.As(err, &pe) || !errors.Is(err, os.ErrNotExist) {
		return plain
	}
	if fi, serr := os.Stat(ledgerDir); serr != nil || !fi.IsDir() {
		return plain
	}
	return &hintedError{plain: plain, hinted: fmt.Sprintf("%s: cannot create a file in %s: %v; fix: point catchup at a ledger in a directory "+
		"where this user can create files (--db, CATCHUP_DB or CATCHUP_STATE_DIR)", op, ledgerDir, pe.Err)}
}
