package sqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/catchup/catchup/store"
)

// ErrLedgerMoved is returned by a write when the ledger's path no longer
// leads to the file this Ledger opened: the file was deleted, or replaced
// by another (a restore from backup, a cleanup script). Writing on would
// record into a file nobody reads, or, through a connection opened anew,
// into the other file's runs of the same id.
var ErrLedgerMoved = store.ErrLedgerMoved

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

// identify returns the identity of the file at path.
func identify(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, nil // no inode to compare: never reported moved
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// unmoved returns ErrLedgerMoved (naming the file and the fix) when the
// ledger's path no longer leads to the file opened; a write checks it first.
func (s *Ledger) unmoved() error {
	if s.opened == (fileID{}) {
		return nil
	}
	now, err := identify(s.real)
	if err == nil && now == s.opened {
		return nil
	}
	what := "replaced by another file"
	if errors.Is(err, os.ErrNotExist) {
		what = "deleted"
	}
	return fmt.Errorf("write ledger %s: %w (it was %s): nothing more is written to it by this catchup; "+
		"the next catchup opens the file now there", s.path, ErrLedgerMoved, what)
}
