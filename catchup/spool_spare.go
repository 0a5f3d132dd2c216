package catchup

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/catchup/catchup/internal/filetrust"
)

// The spare note directory (Machine.NoteDir) is on another filesystem than
// the ledger, a tmpfs: it takes the notes of unrecorded fires when the
// ledger's filesystem is full or read-only. One notes file per ledger,
// named by its lock directory. A tmpfs does not outlive a reboot: a note
// kept there is lost with it, and the slot it stands for runs again.

// spareNotes is the notes file of m's ledger in the spare note directory.
func spareNotes(m Machine) (string, bool) {
	if m.NoteDir == "" {
		return "", false
	}
	return spareNotesIn(m, m.NoteDir), true
}

// spareNotesIn is the notes file of m's ledger in spare note directory dir
// (the spare note directory or a stand-in: spool_spare_squat.go).
func spareNotesIn(m Machine, dir string) string {
	sum := sha256.Sum256([]byte(m.LockDir))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+spoolName)
}

// privateDir checks that dir is a directory of uid's that no one else can
// write or read (the notes say which jobs ran), in directories that only
// root or uid can change (a sticky one, /dev/shm, is fine): no one else can
// swap it for a link to elsewhere between this check and a write. With
// create, it makes it first if missing. A directory someone else made in a
// shared place (/dev/shm) is refused: notes there could make a slot look
// done.
func privateDir(dir string, uid int, create bool) error {
	name := "the note directory " + dir
	if err := checkDirs(name, filepath.Dir(dir), true, []int{0, uid}); err != nil {
		return err
	}
	if create {
		if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
			return err
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		if os.IsNotExist(err) && !create {
			return nil // no notes
		}
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != uid {
		return fmt.Errorf("refusing %s: made by %s, not by uid %d; ask root to remove it", name, filetrust.Describe(int(st.Uid)), uid)
	}
	if !fi.IsDir() || !ok || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("refusing %s: not a directory of uid %d's alone (mode 0700); remove it", name, uid)
	}
	return nil
}
