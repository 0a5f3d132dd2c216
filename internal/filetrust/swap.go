package filetrust

import (
	"fmt"
	"os"
	"path/filepath"
)

// Swappable finds the first directory on the way to the file at path (its
// own directory, then each one above it, at their real paths) that lets a
// user other than uid and root replace the file (rename it away, put
// another of its entries in its place): one owned by another user, or one
// that others can write without the sticky bit (its group may, when that
// is its owner's private group, as Debian's umask 002 leaves it). It
// returns that directory and what it is, in words ("writable by others
// (mode 0777)", "owned by uid 1000 (alice)"); "" when there is none, or
// when a directory cannot be looked at (the file's own read says so). The
// file itself is not looked at: its owner and mode are its reader's to
// check, at every read.
func Swappable(path string, uid int) (dir, why string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", ""
	}
	real, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", ""
	}
	for d := real; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return "", ""
		}
		if o := Owner(fi); o != uid && o != 0 {
			return d, "owned by " + Describe(o)
		}
		if WritableByOthers(fi, true) && (fi.Mode().Perm()&0o002 != 0 || !PrivateGroup(fi)) {
			return d, fmt.Sprintf("writable by others (mode %04o)", ModeBits(fi.Mode()))
		}
		if d == filepath.Dir(d) {
			return "", ""
		}
	}
}
