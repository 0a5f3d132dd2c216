package catchup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The lock directory keeps space in reserve for the notes a full disk
// calls for: a file of noteReserveSize allocated bytes. When the ledger's
// filesystem fills while a job runs, its outcome cannot reach the ledger,
// and its note cannot be appended in the lock directory either (the same
// filesystem); before, it went to the spare note directory alone, and when
// that was full too the note was lost and the slot, which ran, was run
// again. Now the note frees a step of the reserve and is appended again,
// as many steps as it takes, into the space freed: the outcome is kept on
// the ledger's own filesystem, which outlives a reboot (the spare note
// directory, a tmpfs, does not). Another writer on the full filesystem can take that space
// first: the reserve makes the note likely, not certain.
//
// Invariant: a lock directory made by a fire holds a reserve, and every
// import that recorded its notes (a scan, a backfill, a fire that finds
// notes: the first chance after a reserve was spent, once the disk has
// room) makes it again when it is missing or short. Nothing on a fire's
// usual path looks at it.

// noteReserveName is the reserve in the lock directory; like spoolName it
// cannot be a task's lock file, since a task name never starts with a dot.
const noteReserveName = ".notes-reserve"

// noteReserveSize holds one note with both output tails full (64 KiB
// each, base64 in JSON) and the rest of its fields, with room to spare,
// or hundreds of notes without tails.
const noteReserveSize = 256 << 10

// noteReserveStep is what one note frees of the reserve at a time, as
// many times as it needs: a note of a few hundred bytes frees 16 KiB, and
// the rest stays reserved for the next fire's note while the disk stays
// full (an hourly job's outcome every hour).
const noteReserveStep = 16 << 10

// makeNoteReserve makes the reserve in lock directory dir (trusted by
// lockDir: this user's alone, no symlink) whole when it is missing or part
// spent, or when a symlink or an empty directory is at its path, which it
// removes (never following the symlink), and 0600 again when it is not
// (mode 000, read-only: its owner could open it neither to remake it nor
// to spend it), or made anew when it cannot be opened. It says nothing when it cannot:
// the disk is full, or close to it, and a note that then cannot be kept
// says what that costs (spoolFire).
func makeNoteReserve(dir string) {
	path := filepath.Join(dir, noteReserveName)
	switch fi, err := os.Lstat(path); {
	case err != nil:
	case !fi.Mode().IsRegular():
		os.Remove(path) // a symlink (not followed) or an empty directory: no reserve, ever, unless replaced
	case fi.Mode().Perm() != 0o600:
		// mode 000 or read-only (a chmod -R, a restore): its owner could
		// neither remake it nor spend it, and nothing said so
		if os.Chmod(path, 0o600) != nil {
			os.Remove(path) // not ours to change, in our own directory: made again below
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, fs.ErrPermission) && os.Remove(path) == nil {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	}
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() >= noteReserveSize && allocated(fi) >= noteReserveSize {
		return
	}
	err = syscall.Fallocate(int(f.Fd()), 0, 0, noteReserveSize)
	if errors.Is(err, syscall.EOPNOTSUPP) {
		_, err = f.WriteAt(make([]byte, noteReserveSize), 0) // no fallocate: written blocks are held too
	}
	if err != nil {
		f.Truncate(fi.Size()) // what it held before, no more: a part made would read as whole
	}
}

// allocated is the space a file holds on its disk (a sparse file's holes
// hold none).
func allocated(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return 0
}

// spendNoteReserve frees noteReserveStep of the reserve in lock directory
// dir, and reports whether there was any left to free.
func spendNoteReserve(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, noteReserveName), os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return false
	}
	return f.Truncate(max(0, fi.Size()-noteReserveStep)) == nil
}
