package store

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrLedgerIsDir is returned by RefuseDirectory.
var ErrLedgerIsDir = errors.New("is a directory, not a ledger file")

// RefuseDirectory returns an error wrapping ErrLedgerIsDir when path, a
// SQLite ledger's, names a directory: one that exists (through any
// symlink), or any path written with a trailing slash. SQLite's own
// refusal of a directory reads as a permission problem.
func RefuseDirectory(path string) error {
	fi, err := os.Stat(path)
	if strings.HasSuffix(path, "/") || err == nil && fi.IsDir() {
		return fmt.Errorf("ledger %s %w", path, ErrLedgerIsDir)
	}
	return nil
}
