package catchup

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/store"
)

// lineLedgerFile hands a crontab line of the scanning user the ledger's
// location through a file, when the location carries a password and scan
// did not read it from a file already (m.DBFile): the line's shell, and
// every command of the line besides its `catchup run`, see the line's
// environment, and nothing secret goes into a job's environment. The file
// is this user's, mode 600 (as CATCHUP_DB_FILE must be), alone in a
// directory of its own (mode 700); done removes both. Invariant: with
// path "", m needs no file and done does nothing.
func lineLedgerFile(m Machine) (path string, done func(), err error) {
	if m.DBFile != "" || store.WithoutPassword(m.DB) == m.DB {
		return "", func() {}, nil
	}
	dir, err := os.MkdirTemp("", "catchup-ledger-")
	if err != nil {
		return "", nil, fmt.Errorf("hand the line its ledger: %w", err)
	}
	done = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "ledger")
	if err := os.WriteFile(path, []byte(m.DB+"\n"), 0o600); err != nil {
		done()
		return "", nil, fmt.Errorf("hand the line its ledger: %w", err)
	}
	return path, done, nil
}
