package sqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// roFSFix is the fix of a ledger whose file system is read-only, also said
// by accessHint for one mounted so.
const roFSFix = "remount it read-write"

// ioFault reports whether err is SQLite's I/O error (SQLITE_IOERR, which a
// write into a file system turned read-only under it gives) or the
// system's EIO or EROFS (the WAL's own sync: walsync.go).
func ioFault(err error) bool {
	return resultCode(err) == 10 || errors.Is(err, syscall.EIO) || errors.Is(err, syscall.EROFS)
}

// readOnlyFSHint says, when the ledger file at real cannot be opened for
// writing because its file system is read-only, so and the fix; "" when it
// can be, or fails for another cause. It is asked when access(2) and the
// mount's flags say nothing: since Linux 6.x an ext4 file system that met
// an error with errors=remount-ro is read-only in its own state, and its
// mount still says rw. The open neither creates nor truncates: it changes
// nothing.
func readOnlyFSHint(real string) string {
	f, err := os.OpenFile(real, os.O_WRONLY, 0)
	if err == nil {
		f.Close()
		return ""
	}
	if !errors.Is(err, syscall.EROFS) {
		return ""
	}
	return fmt.Sprintf("the ledger file %s is on a read-only file system (the kernel makes one so after an I/O error "+
		"when mounted errors=remount-ro: see dmesg); fix: check the disk, then %s, or point catchup at a ledger this "+
		"user can write (--db, CATCHUP_DB or CATCHUP_STATE_DIR)", real, roFSFix)
}
