package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// gone is the refusal of a call while the ledger, closed for a reopen that
// failed, is not back at its path (under mu): it names the ledger, what
// became of it and the fix. Before, each such call said only "sql:
// database is closed" (its directory removed under the daemon, say).
func (rl *reopening) gone() error {
	what := "it cannot be reopened (" + rl.failSaid + ")"
	dir := filepath.Dir(rl.path)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		what = "its directory " + dir + " was removed"
	} else if _, err := os.Stat(rl.path); errors.Is(err, os.ErrNotExist) {
		what = "its file was deleted"
	}
	return fmt.Errorf("ledger %s: %s (%w): nothing is written to it until a ledger is back at that path: "+
		"restore it from a backup (the daemon tries to reopen it every %s), or restart the daemon, "+
		"which creates it empty", rl.path, what, store.ErrLedgerMoved, catchup.FormatDuration(reopenRetry))
}
