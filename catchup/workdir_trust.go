package catchup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/internal/filetrust"
)

// trustedWorkDir refuses the working directory a replay or a backfill reads
// from the ledger when another user controls it: a directory of /tmp that
// was cleaned away and made again by someone else, holding their ./job.sh,
// would run their file as the user who registered the task (root, for the
// packaged scan). The rules are the crontab's (filetrust): the directory,
// at its real path, is owned by uid or root and writable by no one else
// (its group may write it when it is its owner's private group, as with
// Debian's umask 002);
// every directory above it likewise, sticky ones (/tmp) allowed; no
// symlink on the way is another user's. A directory that does not exist is
// refused too (the command could not start there anyway: 126), so that no
// one makes it between this check and the start. A fire runs where
// it is started, and is not checked: its invoker chose the directory.
func trustedWorkDir(dir string, uid int) error {
	if dir == "" {
		return nil
	}
	name := "working directory " + dir
	if err := filetrust.PlantedLink(name, dir, uid); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		// Gone (or unreadable): refused here, not left to the runner,
		// since another user could make it between this check and the start.
		return &filetrust.Refusal{Name: name, Reason: fmt.Sprintf("it cannot be used: %v", errors.Unwrap(err)),
			Fix: "make it again, or fire the task once from a directory of your own (the fire registers it)"}
	}
	for p, self := real, true; ; p, self = filepath.Dir(p), false {
		fi, err := os.Stat(p)
		if err != nil { // gone since EvalSymlinks: refused, as a missing one is
			return &filetrust.Refusal{Name: name, Reason: fmt.Sprintf("%s cannot be used: %v", p, errors.Unwrap(err)),
				Fix: "make it again, or fire the task once from a directory of your own (the fire registers it)"}
		}
		var r *filetrust.Refusal
		if err := filetrust.Owned(name, p, fi, uid); errors.As(err, &r) {
			r.Fix = "remove it if you did not make it, or fire the task once from a directory of your own (the fire registers it)"
			if !self {
				r.Reason = fmt.Sprintf("%s is owned by uid %d, not by uid %d running catchup nor root", p, filetrust.Owner(fi), uid)
			}
			return r
		}
		if othersCanWrite(fi, !self) {
			what := "it is"
			if !self {
				what = p + " is"
			}
			return &filetrust.Refusal{Name: name,
				Reason: fmt.Sprintf("%s writable by others (mode %04o)", what, filetrust.ModeBits(fi.Mode())),
				Fix:    "chmod go-w " + p}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// othersCanWrite reports whether someone besides fi's owner can write it:
// other users, or a group that is not its owner's private group. With
// sticky, a sticky directory does not count (filetrust.WritableByOthers).
func othersCanWrite(fi os.FileInfo, sticky bool) bool {
	if !filetrust.WritableByOthers(fi, sticky) {
		return false
	}
	return fi.Mode().Perm()&0o002 != 0 || !filetrust.PrivateGroup(fi)
}
