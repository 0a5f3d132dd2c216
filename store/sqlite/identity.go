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

// ErrIndexReplaced is returned by a write when the ledger's -shm (the WAL
// index SQLite maps) was deleted or replaced since this Ledger opened it:
// the file and its WAL are the ledger's, but another process may have
// committed through a new index, and a write through the old one would
// overwrite those commits in the WAL. The ledger is sound: what was not
// written (an outcome) may be noted for the next process to record.
var ErrIndexReplaced = errors.New("its WAL index changed since catchup opened it")

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

// identify returns the identity of the file at path, and its size.
func identify(path string) (fileID, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, fi.Size(), nil // no inode to compare: never reported moved
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, fi.Size(), nil
}

// headerSize is the size of a SQLite database file's header: a ledger
// file shorter than that, which was longer when opened, was truncated.
const headerSize = 100

// unmoved returns ErrLedgerMoved (naming the file and the fix) when the
// ledger's path no longer leads to the file opened, or that file was
// truncated (its header gone: what is written after would reach only its
// WAL, of a file every later command refuses); a write checks it first.
func (s *Ledger) unmoved() error {
	if s.opened == (fileID{}) {
		return nil
	}
	now, size, err := identify(s.real)
	truncated := err == nil && size < headerSize && s.openedSize >= headerSize
	what := "it was replaced by another file"
	switch {
	case errors.Is(err, os.ErrNotExist):
		what = "it was deleted"
	case truncated:
		what = fmt.Sprintf("it was truncated to %d bytes", size)
	case err == nil && now == s.opened:
		// The WAL stays at rest (keepwal.go): it holds every commit since
		// the last checkpoint, and SQLite goes on writing into the one it
		// has open, deleted or not, where no later process reads.
		if s.wal == (fileID{}) {
			return nil
		}
		wal, _, werr := identify(s.real + "-wal")
		if werr == nil && wal == s.wal {
			return s.unindexed()
		}
		what = "its -wal was replaced by another file, and with it every record since its last checkpoint"
		if errors.Is(werr, os.ErrNotExist) {
			what = "its -wal was deleted, and with it every record since its last checkpoint"
		}
	}
	return fmt.Errorf("write ledger %s: %w (%s): nothing more is written to it by this catchup; "+
		"the next catchup opens the file now there", s.path, ErrLedgerMoved, what)
}

// unindexed returns ErrIndexReplaced when the ledger's -shm no longer is
// the one this process mapped (deleted, or replaced by another process's
// new one): SQLite would go on writing through the old index, over the
// WAL frames another process committed through the new one.
func (s *Ledger) unindexed() error {
	if s.shm == (fileID{}) {
		return nil
	}
	shm, _, err := identify(s.real + "-shm")
	if err == nil && shm == s.shm {
		return nil
	}
	what := "replaced by another file"
	if errors.Is(err, os.ErrNotExist) {
		what = "deleted"
	}
	return fmt.Errorf("write ledger %s: %w (its -shm was %s): nothing more is written to it "+
		"by this catchup, whose index of its WAL is stale; the next catchup to start opens it anew (a daemon reopens it)", s.path, ErrIndexReplaced, what)
}
