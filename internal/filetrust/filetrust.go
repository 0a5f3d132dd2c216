// Package filetrust decides whether a file or directory may be trusted by
// the user running catchup: another user must not have planted it, nor be
// able to change it. catchup executes what its ledger and crontabs say, so
// a file someone else controls is a way to run commands as this user.
//
// The rules are those of cron and sshd's StrictModes: owned by this user or
// by root, and writable by no one else (a sticky directory, like /tmp, only
// where the caller allows it).
package filetrust

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// ErrRefused is wrapped by every refusal.
var ErrRefused = errors.New("refused")

// Refusal says which file was refused, why, and how to fix it.
type Refusal struct {
	Name   string // what and where: "crontab /etc/cron.d/x", "lock file /var/lib/catchup/x.lock"
	Reason string
	Fix    string
}

// Error reads "NAME: refused: REASON; fix: FIX".
func (r *Refusal) Error() string {
	return fmt.Sprintf("%s: refused: %s; fix: %s", r.Name, r.Reason, r.Fix)
}

// Is makes errors.Is(err, ErrRefused) true.
func (r *Refusal) Is(target error) bool { return target == ErrRefused }

// Owner is the uid owning fi (-1 when the platform does not say).
func Owner(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// Links is fi's hard link count (1 when the platform does not say).
func Links(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 1
}

// UserName is uid's login name, or "" when uid has none.
func UserName(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return ""
	}
	return u.Username
}

// Describe names uid for people: "uid 65534 (nobody)".
func Describe(uid int) string {
	if n := UserName(uid); n != "" {
		return fmt.Sprintf("uid %d (%s)", uid, n)
	}
	return fmt.Sprintf("uid %d", uid)
}

// Owned refuses a file or directory of catchup's own (a ledger, a lock)
// that another user planted: fi, found at path without following a
// symlink, must not be a symlink, and must be owned by uid or by root.
// name says what it is ("ledger PATH").
func Owned(name, path string, fi os.FileInfo, uid int) error {
	if fi.Mode()&os.ModeSymlink != 0 {
		return &Refusal{Name: name, Reason: "it is a symlink, which catchup does not follow here",
			Fix: "remove it if you did not put it there: rm " + path}
	}
	if o := Owner(fi); o != uid && o != 0 && o != -1 {
		return &Refusal{Name: name,
			Reason: fmt.Sprintf("it is owned by uid %d, not by uid %d running catchup (planted by another user?)", o, uid),
			Fix:    fmt.Sprintf("remove it if you did not put it there, else chown %d %s", uid, path)}
	}
	return nil
}

// Private is Owned, and writable by its owner only.
func Private(name, path string, fi os.FileInfo, uid int) error {
	if err := Owned(name, path, fi, uid); err != nil {
		return err
	}
	if WritableByOthers(fi, false) {
		return &Refusal{Name: name, Reason: fmt.Sprintf("it is writable by others (mode %04o)", ModeBits(fi.Mode())),
			Fix: "chmod go-w " + path}
	}
	return nil
}

// WritableByOthers reports whether fi's group or other users can write it.
// With sticky, a sticky directory does not count: others may add files to
// it, but not replace or rename those of its other users.
func WritableByOthers(fi os.FileInfo, sticky bool) bool {
	if fi.Mode().Perm()&0o022 == 0 {
		return false
	}
	return !(sticky && fi.IsDir() && fi.Mode()&os.ModeSticky != 0)
}

// ModeBits is the permission bits with setuid, setgid and sticky, as
// chmod takes them.
func ModeBits(m os.FileMode) uint32 {
	b := uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		b |= 0o4000
	}
	if m&os.ModeSetgid != 0 {
		b |= 0o2000
	}
	if m&os.ModeSticky != 0 {
		b |= 0o1000
	}
	return b
}

// PlantedLink refuses a path any of whose components, path itself
// included, is a symlink owned by someone other than uid or root: following
// it, uid would read or create files wherever that user chose.
func PlantedLink(name, path string, uid int) error {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if o := Owner(fi); o != uid && o != 0 {
				return &Refusal{Name: name + " " + p,
					Reason: fmt.Sprintf("it is a symlink owned by uid %d, not by uid %d running catchup (planted by another user?)", o, uid),
					Fix:    "remove it if you did not put it there: rm " + p}
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}
