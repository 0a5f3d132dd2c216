package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/catchup/catchup/internal/filetrust"
)

// swapFix is the fix for a file of catchup's (a --ping-file, the
// CATCHUP_DB_FILE) that directory dir lets another user replace, why
// (filetrust.Swappable): close the directory, or move the file.
func swapFix(dir, why string) string {
	if strings.HasPrefix(why, "owned by") {
		return "keep the file in a directory of your own"
	}
	return "chmod go-w " + dir + ", or keep the file in a directory of your own"
}

// ledgerFileWarned is the CATCHUP_DB_FILE paths this process has warned of
// (warnLedgerFileSwappable): once each, however often the ledger is looked up.
var ledgerFileWarned sync.Map

// warnLedgerFileSwappable warns, once per process, of a CATCHUP_DB_FILE in
// a directory that lets another user replace it (filetrust.Swappable),
// naming the directory and the fix. The file is still used: it is this
// user's or root's and readable by no one else, checked at every read, so
// what another user can put in its place is only another file of theirs
// (refused) or of this user's, or nothing (refused: every command says
// so); the ledger it names is checked as any ledger is. Refusing it would
// stop every job over a directory that has held it all along.
func warnLedgerFileSwappable(w io.Writer, path string) {
	dir, why := filetrust.Swappable(path, os.Geteuid())
	if dir == "" {
		return
	}
	if _, done := ledgerFileWarned.LoadOrStore(path, true); done {
		return
	}
	fmt.Fprintf(w, "catchup: warning: CATCHUP_DB_FILE %s: %s, a directory on its path, is %s: another user could replace the file, "+
		"and with it the ledger catchup records in; fix: %s\n", path, dir, why, swapFix(dir, why))
}
