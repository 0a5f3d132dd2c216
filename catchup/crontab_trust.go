package catchup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/internal/filetrust"
)

// CrontabFile is a crontab that passed cron's checks, with the bytes read from the
// very file that was checked.
type CrontabFile struct {
	Path   string // as given (absolute)
	Data   []byte
	System bool   // /etc/crontab or /etc/cron.d/*: each line names its user
	User   string // a user crontab's user, whose lines they all are; "" for a system crontab
	Spool  bool   // a user crontab in cron's spool (crontab -e writes it): its lines run in User's passwd home
}

// spoolDirs hold the user crontabs that `crontab -e` writes, one file per
// user, named after the user (Debian, Red Hat, SUSE, the BSDs).
var spoolDirs = []string{"/var/spool/cron/crontabs", "/var/spool/cron", "/var/spool/cron/tabs", "/var/cron/tabs"}

// OpenCrontab reads the crontab at path (absolute) if cron itself would trust it
// (cronie's rules), for a scan run by uid:
//
//   - it is a regular file, writable by no one but its owner;
//   - a system crontab is owned by root, and every directory on its way,
//     through any symlink, is root's and writable by root only;
//   - a user crontab belongs to its user: in a spool directory the file's
//     name is the user, who (or root) owns it; elsewhere its owner is the
//     user (a file root owns is the scanning user's). The real file
//     decides: a spool file reached through a symlink is its user's. It has
//     one hard link, and every directory on its way is root's or the user's
//     and writable by no one else, unless sticky (like /tmp);
//   - every symlink on the way is root's or the scanning user's: another
//     user could point theirs at another file (walkOpen).
//
// A refusal is a *filetrust.Refusal naming the file, the reason and the fix.
// The path is resolved, its symlinks and directories checked, and the file
// opened in one walk over held directory handles (walkOpen): nothing is
// resolved again by path, so the file read is the one reached through the
// very directories and symlinks that were checked, and it is read through
// the descriptor whose fstat was checked.
func OpenCrontab(path string, uid int) (CrontabFile, error) {
	f, dir, err := openCrontabIn(path, uid)
	if dir != nil {
		dir.Close()
	}
	return f, err
}

// openCrontabIn is OpenCrontab, and a handle (O_PATH) of the directory
// the walk looked the path's own name up in, for the files beside it
// (crontabBackupsIn), nil when the crontab was not read; the caller closes
// it.
func openCrontabIn(path string, uid int) (CrontabFile, *os.File, error) {
	f := CrontabFile{Path: path}
	if path == "" { // a task found on stdin has no file to re-read
		return f, nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ENOENT}
	}
	name := "crontab " + path
	w, err := walkOpen(name, path, []int{0, uid})
	if err != nil {
		return f, nil, err
	}
	f.System = crontab.IsSystem(path) || crontab.IsSystem(w.real)
	owners, err := f.checkFile(name, w.real, w.fi, uid)
	if err == nil {
		err = checkWalkedDirs(name, w.dirs, !f.System, owners)
	}
	if err == nil {
		f.Data, err = readCapped(name, w.real, w.fd, w.fi)
	}
	w.fd.Close()
	if err != nil {
		w.given.Close()
		return f, nil, err
	}
	return f, w.given, nil
}

// readCapped reads a checked crontab through its descriptor, at most
// crontab.MaxSize bytes: a larger one (by its size, else by what it
// holds: it grew, or its size says nothing) is refused, none of it used.
func readCapped(name, real string, fd *os.File, fi os.FileInfo) ([]byte, error) {
	var data []byte
	err := crontab.ErrTooLarge
	if fi.Size() <= crontab.MaxSize {
		data, err = crontab.Read(fd)
	}
	if errors.Is(err, crontab.ErrTooLarge) {
		return nil, &filetrust.Refusal{Name: name, Reason: err.Error(),
			Fix: "keep only its cron lines in " + real + " (a crontab is a few KB), or remove it if no one meant it as one"}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return data, nil
}

// checkFile applies cron's rules to the crontab file itself and finds whose
// lines it holds; owners are the uids that may own its directories.
func (f *CrontabFile) checkFile(name, real string, fi os.FileInfo, uid int) ([]int, error) {
	refuse := func(reason, fix string) ([]int, error) {
		return nil, &filetrust.Refusal{Name: name, Reason: reason, Fix: fix}
	}
	if !fi.Mode().IsRegular() {
		return refuse("it is not a regular file", "point scan at the crontab file itself")
	}
	if filetrust.WritableByOthers(fi, false) {
		return refuse(fmt.Sprintf("it is writable by others (mode %04o)", filetrust.ModeBits(fi.Mode())), "chmod go-w "+real)
	}
	owner := filetrust.Owner(fi)
	if f.System {
		if owner != 0 {
			return refuse(fmt.Sprintf("it is owned by %s, not root: a system crontab must be root's", filetrust.Describe(owner)),
				"chown root "+real)
		}
		return []int{0}, nil
	}
	if filetrust.Links(fi) != 1 {
		return refuse(fmt.Sprintf("it has %d hard links, so it may be another user's file", filetrust.Links(fi)),
			"copy it to a file of its own (cp, then rm the link)")
	}
	// The real file decides whose lines it holds: a spool file reached
	// through a symlink is still its user's.
	spool, asGiven := spoolUser(real), spoolUser(f.Path)
	if spool != "" && asGiven != "" && spool != asGiven {
		return refuse(fmt.Sprintf("it is reached as %s's crontab, but it is %s's (%s)", asGiven, spool, real),
			"remove the symlink "+f.Path)
	}
	if spool == "" {
		spool = asGiven
	}
	if spool != "" {
		u, err := user.Lookup(spool)
		if err != nil {
			return refuse(fmt.Sprintf("it is in a spool directory, but there is no user %q", spool), "remove it, or create the user")
		}
		id, _ := strconv.Atoi(u.Uid)
		if owner != 0 && owner != id {
			return refuse(fmt.Sprintf("it is %s's crontab but owned by %s", spool, filetrust.Describe(owner)),
				"chown "+spool+" "+real+" (crontab -u "+spool+" writes it so)")
		}
		f.User, f.Spool = spool, true
		return []int{0, id}, nil
	}
	if owner == 0 {
		owner = uid // a file of root's holds the scanning user's lines
	}
	if f.User = filetrust.UserName(owner); f.User == "" {
		return refuse(fmt.Sprintf("it is owned by uid %d, which is no user", owner), "chown it to the user whose lines it holds")
	}
	return []int{0, owner}, nil
}

// spoolUser is the user a crontab in a spool directory belongs to, "" if
// path is not in one.
func spoolUser(path string) string {
	p := filepath.Clean(path)
	for _, d := range spoolDirs {
		if filepath.Dir(p) == d {
			return filepath.Base(p)
		}
	}
	return ""
}

// checkDirs refuses a crontab whose directory, or any directory above it,
// someone other than owners can change (and so replace the crontab). Each
// directory is looked at through any symlink, so the chain checked is the
// one the file was reached through. Above the crontab's own directory a
// sticky one (/tmp) is fine: no one else can rename what is in it. The
// crontab's own directory may be sticky only for a user crontab (the spool
// directory often is): another user could add a file there, never replace
// this one.
func checkDirs(name, dir string, stickyOwn bool, owners []int) error {
	for d, sticky := dir, stickyOwn; ; d, sticky = filepath.Dir(d), true {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := checkDir(name, d, fi, sticky, owners); err != nil {
			return err
		}
		if d == "/" || d == "." {
			return nil
		}
	}
}

// checkDir refuses directory d (as fi shows it) if someone other than
// owners owns it, or anyone else can write it (a sticky one, with sticky).
func checkDir(name, d string, fi os.FileInfo, sticky bool, owners []int) error {
	if o := filetrust.Owner(fi); !slices.Contains(owners, o) {
		return &filetrust.Refusal{Name: name,
			Reason: fmt.Sprintf("its directory %s is owned by %s, who could replace it", d, filetrust.Describe(o)),
			Fix:    "move it to a directory of " + ownerNames(owners)}
	}
	if filetrust.WritableByOthers(fi, sticky) {
		return &filetrust.Refusal{Name: name,
			Reason: fmt.Sprintf("its directory %s is writable by others (mode %04o)", d, filetrust.ModeBits(fi.Mode())),
			Fix:    "chmod go-w " + d}
	}
	return nil
}

func ownerNames(uids []int) string {
	var names []string
	for _, u := range slices.Compact(slices.Sorted(slices.Values(uids))) {
		if n := filetrust.UserName(u); n != "" {
			names = append(names, n)
		} else {
			names = append(names, "uid "+strconv.Itoa(u))
		}
	}
	return strings.Join(names, " or ")
}

// OpenOwnCrontab reads a crontab whose lines run as uid itself (the
// daemon's), if no one else could have written it: a regular file that
// root or uid owns, writable by no one else, reached only through symlinks
// of root's or uid's and directories of root's or uid's that no one else can write
// (a sticky one above its own is fine). It is resolved, checked and opened
// in one walk over held directory handles (walkOpen), nothing re-resolved
// by path, and read through the descriptor that was checked. A refusal is a
// *filetrust.Refusal.
func OpenOwnCrontab(path string, uid int) ([]byte, error) {
	name := "crontab " + path
	owners := []int{0, uid}
	w, err := walkOpen(name, path, owners)
	if err != nil {
		return nil, err
	}
	defer w.close()
	real, fi := w.real, w.fi
	switch owner := filetrust.Owner(fi); {
	case !fi.Mode().IsRegular():
		return nil, &filetrust.Refusal{Name: name, Reason: "it is not a regular file", Fix: "point the daemon at the crontab file itself"}
	case filetrust.WritableByOthers(fi, false):
		return nil, &filetrust.Refusal{Name: name, Reason: fmt.Sprintf("it is writable by others (mode %04o), who could make the daemon run anything",
			filetrust.ModeBits(fi.Mode())), Fix: "chmod go-w " + real}
	case !slices.Contains(owners, owner):
		return nil, &filetrust.Refusal{Name: name, Reason: fmt.Sprintf("it is owned by %s, who could make the daemon run anything as %s",
			filetrust.Describe(owner), filetrust.Describe(uid)), Fix: "chown it to " + ownerNames(owners)}
	}
	if err := checkWalkedDirs(name, w.dirs, false, owners); err != nil {
		return nil, err
	}
	return readCapped(name, real, w.fd, fi)
}
