package cmd

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/catchup/catchup/store"
)

// notAFile says what a SQLite ledger location names that can never be a
// ledger file, or "" when it may be one (a regular file, none yet, or a
// directory, which store.RefuseDirectory names): SQLite's ":memory:",
// which keeps nothing (catchup made a file of that name that no command
// could then open), or a FIFO, device or socket, which SQLite read as an
// empty file, a lost ledger the hint said to remove (/dev/null included).
func notAFile(path string) string {
	if path == ":memory:" {
		return "SQLite's in-memory database, which keeps nothing"
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	switch m := fi.Mode(); {
	case m.IsRegular() || m.IsDir():
		return ""
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// dbFlag is what sets the ledger's location, for a fix.
const dbFlag = "--db (or CATCHUP_DB)"

// refuseNotAFile is the error for a location notAFile names, with the fix
// for the flag that gave it (fix: "--db (or CATCHUP_DB)", "--from").
func refuseNotAFile(db, fix string) error {
	loc, err := store.ParseLocation(db)
	if err != nil || loc.Kind != store.SQLite {
		return nil // the open says why, or there is no file
	}
	what := notAFile(loc.Path)
	if what == "" {
		return nil
	}
	hint := ""
	if loc.Path == ":memory:" {
		hint = " (a file of that name: ./:memory:)"
	}
	return fmt.Errorf("ledger %s is %s, not a ledger file; fix: %s takes the ledger file's path%s", loc.Path, what, fix, hint)
}
