package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/catchup/catchup/store"
)

// Where a catchup keeps its locks and its notes of unrecorded fires
// follows from its ledger, its user and its environment: a fire of
// another user's crontab line keeps them where that user's catchup does,
// and root's scan, which replays that line, finds them there (notesOf).

// stateDirOf is the private directory of a catchup run as uid with
// environment getenv: $CATCHUP_STATE_DIR, else /var/lib/catchup as root,
// else $XDG_STATE_HOME/catchup (~/.local/state/catchup).
func stateDirOf(uid int, getenv func(string) string) (string, error) {
	if d := getenv("CATCHUP_STATE_DIR"); d != "" {
		if err := refuseOddPath("CATCHUP_STATE_DIR", d, getenv); err != nil {
			return "", err
		}
		return d, refuseRelativeStateDir(d)
	}
	if uid == 0 {
		return "/var/lib/catchup", nil
	}
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "catchup"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", fmt.Errorf("no ledger location: %w; fix: set HOME (the ledger is then ~/.local/state/catchup/catchup.db), "+
			"set CATCHUP_STATE_DIR or XDG_STATE_HOME to an absolute directory, or pass --db or set CATCHUP_DB",
			errors.New("$HOME is not defined"))
	}
	if !filepath.IsAbs(home) { // cron takes a crontab's HOME= as written: it made a ledger under the working directory
		return "", fmt.Errorf("HOME=%q is not an absolute path, so the default ledger would be under the working directory; "+
			"set HOME to the user's home in the crontab, or pass --db or set CATCHUP_DB", home)
	}
	return filepath.Join(home, ".local", "state", "catchup"), nil
}

// lockDirOf is the lock directory of ledger db for a catchup run as uid
// with environment getenv: beside a ledger file (DB.locks), else, for a
// PostgreSQL ledger or a location that names no file, one directory per
// ledger in the private state directory (so that two ledgers' tasks of
// the same name never block each other). A location that does not parse
// names no file either: its text (a mistyped URL's password) must not
// become directories; its fires run unrecorded. Nor does one that is no
// file (/dev/null, a FIFO, :memory:).
func lockDirOf(db string, uid int, getenv func(string) string) (string, error) {
	lockDir := store.LedgerPathFor(db, uid) + ".locks"
	_, badLocation := store.ParseLocation(db)
	if badLocation == nil {
		badLocation = refuseNotAFile(db, dbFlag) // /dev/null: no /dev/null.locks
	}
	if !store.IsPostgres(db) && badLocation == nil {
		return lockDir, nil
	}
	dir, err := stateDirOf(uid, getenv)
	if err != nil {
		return "", err
	}
	key, prefix := lockDirKey(db), ""
	if badLocation != nil {
		key, prefix = db, "unparsed-"
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, "locks", prefix+hex.EncodeToString(sum[:6])), nil
}

// noteDirOf is the spare note directory of uid's fires, where a fire that
// ran unrecorded leaves its note when the ledger's filesystem (full,
// read-only) cannot take it: a tmpfs apart from the ledger, the same for
// every process of the user (a fire from cron and a scan from a shell
// must look in one place, so nothing of a session's environment chooses
// it). CATCHUP_NOTE_DIR names another, for tests.
func noteDirOf(uid int, getenv func(string) string) string {
	if d := getenv("CATCHUP_NOTE_DIR"); filepath.IsAbs(d) {
		return d
	}
	if uid == 0 {
		return "/run/catchup"
	}
	return fmt.Sprintf("/dev/shm/catchup-%d", uid)
}

// notesOf is where a fire of user uid, with environment env (cron's, as
// root's scan gives that user's line), recording into ledger db, keeps its
// notes of unrecorded fires: its lock directory and its spare note
// directory (catchup.Machine.NotesOf).
func notesOf(db string, uid int, env []string) (lockDir, noteDir string, err error) {
	getenv := func(k string) string {
		v := ""
		for _, kv := range env {
			if name, val, ok := strings.Cut(kv, "="); ok && name == k {
				v = val // the last one, as a shell's export would leave it
			}
		}
		return v
	}
	if lockDir, err = lockDirOf(db, uid, getenv); err != nil {
		return "", "", err
	}
	return lockDir, noteDirOf(uid, getenv), nil
}
