package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/catchup/catchup/store"
)

// homeIsRootHint names the cause of an error opening the default ledger of
// a user other than root whose HOME is / (a HOME=/ line above the job in
// its crontab, or a user whose home is /): the ledger's directory would be
// /.local/state/catchup, which only root can create, and the error blamed
// the ledger ("create ledger directory /.local/state/catchup: mkdir
// /.local: permission denied"). Any other error, or ledger, is err as it is.
func homeIsRootHint(err error, path string, uid int, getenv func(string) string) error {
	if uid == 0 || getenv("HOME") == "" || filepath.Clean(getenv("HOME")) != "/" {
		return err
	}
	dir, derr := stateDirOf(uid, getenv)
	if derr != nil || dir != filepath.Join("/", ".local", "state", "catchup") || path != filepath.Join(dir, "catchup.db") {
		return err // CATCHUP_STATE_DIR, XDG_STATE_HOME, --db or CATCHUP_DB chose the ledger
	}
	if !errors.Is(err, os.ErrPermission) && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, store.ErrNoLedger) {
		return err
	}
	var hinted interface{ Unhinted() error }
	if errors.As(err, &hinted) { // its fix (chmod, chown) is not this one
		err = hinted.Unhinted()
	}
	return fmt.Errorf("HOME is / for uid %d, so its ledger would be %s, where only root can create it; "+
		"fix: set HOME to the user's home in the crontab (or remove its HOME=/ line), or pass --db or set CATCHUP_DB (%w)", uid, path, err)
}

// homeIsRootLockHint is homeIsRootHint for the lock directory of a ledger
// that has none beside it (PostgreSQL): with HOME=/ it would be under
// /.local/state/catchup, which only root can create, and the error blamed
// the shared ledger ("cannot record the claim: ...: create lock directory:
// mkdir /.local: permission denied"). The fix names CATCHUP_STATE_DIR,
// where the lock directory goes. Any other error, or directory, is err as
// it is.
func homeIsRootLockHint(err error, lockDir string, uid int, getenv func(string) string) error {
	if uid == 0 || getenv("HOME") == "" || filepath.Clean(getenv("HOME")) != "/" {
		return err
	}
	dir, derr := stateDirOf(uid, getenv)
	if derr != nil || dir != filepath.Join("/", ".local", "state", "catchup") || !strings.HasPrefix(lockDir, dir+"/") {
		return err // CATCHUP_STATE_DIR or XDG_STATE_HOME chose it
	}
	if !errors.Is(err, os.ErrPermission) && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return fmt.Errorf("HOME is / for uid %d, so its lock directory would be %s, where only root can create it; "+
		"fix: set HOME to the user's home in the crontab (or remove its HOME=/ line), or set CATCHUP_STATE_DIR (%w)", uid, lockDir, err)
}
