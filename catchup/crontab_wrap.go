package catchup

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/catchup/catchup/internal/filetrust"
)

// BackupSuffix names the copy of the original that --in-place leaves
// beside a crontab: FILE.bak~. It ends in "~" because no cron reads such a
// name: cronie's not_a_crontab skips names ending in "~" (and ".rpmsave",
// ".rpmorig", ".rpmnew", or starting with "#") but reads any other file in
// /etc/cron.d, FILE.bak included, which would run every job twice; Debian's
// cron reads only names of [A-Za-z0-9_-]; a spool crontab is read only
// under its user's name.
const BackupSuffix = ".bak~"

// ReadToWrap reads the crontab file that `crontab wrap` is given as scan
// reads a crontab: opened without blocking (a FIFO with no writer blocked
// the open for good), then read only if it is a regular file of at most
// crontab.MaxSize bytes (a device such as /dev/zero never ends; a sparse
// file of gigabytes uses no disk). A refusal is a *filetrust.Refusal
// naming the file and the fix. A symlink is followed: wrap only prints,
// and --in-place refuses one itself (WriteWrapped). fi is the file read,
// which --in-place alone replaces (WriteWrapped).
//
// What path names is looked at before it is opened, through a descriptor
// that opens nothing (O_PATH), and opened (through /proc/self/fd: the same
// file) only when it is a regular file: root wrapping a user's file opened
// the device a symlink there pointed to (/dev/watchdog arms the reboot)
// before refusing it.
func ReadToWrap(path string) (data []byte, fi os.FileInfo, err error) {
	fd, fi, err := filetrust.OpenIfRegular(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read crontab: %w", err)
	}
	if fd != nil {
		defer fd.Close()
	}
	name := "crontab " + path
	if !fi.Mode().IsRegular() {
		kind, fix := fileKind(fi.Mode()), "name the crontab file itself, or pipe what it gives: catchup crontab wrap - < "+path
		if fi.IsDir() {
			fix = "name the crontab file in it, not the directory"
		}
		return nil, nil, &filetrust.Refusal{Name: name, Reason: "it is not a regular file (" + kind + ")", Fix: fix}
	}
	data, err = readCapped(name, path, fd, fi)
	return data, fi, err
}

// fileKind names what a file that is not a regular one is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// WriteWrapped replaces the crontab file path with text, keeping the old
// contents in path+BackupSuffix first. Both keep the original's mode, owner
// and group: cron refuses a user's crontab that another user owns, and would
// stop all of that user's jobs. The new file is written beside it and
// renamed over it, so that cron never reads half a file. euid is the
// caller's effective uid: only root can give a file to another user, so
// anyone else is refused, before anything is written, a file that is not
// theirs. A caller that is not root keeps the file's group when it is in
// that group; otherwise the files get its own group, and a note says so
// (cron checks a crontab's owner, not its group). A symlink is refused too:
// the rename would replace the link with a file.
//
// read is the file old was read from (ReadToWrap): only that file is
// replaced, and only in the directory it was read from. Every write goes
// through one handle on that directory, which another user who can write
// it (a crontab of theirs that root wraps) can no longer swap: before, a
// symlink to root's secret, read through, then swapped for a file of
// theirs, left the secret in the backup, given the user's file's owner; a
// directory on the way swapped for a symlink had root write elsewhere.
func WriteWrapped(path string, read os.FileInfo, old []byte, text string, euid int) (backup string, notes []string, err error) {
	d, err := os.OpenFile(filepath.Dir(path), os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, fmt.Errorf("crontab %s: %w", path, err)
	}
	defer d.Close()
	dir := wrapDir{fd: int(d.Fd()), path: path}
	base := filepath.Base(path)
	var st unix.Stat_t
	if err := unix.Fstatat(dir.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return "", nil, fmt.Errorf("crontab %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		target, err := filepath.EvalSymlinks(path)
		if err == nil {
			target, err = filepath.Abs(target)
		}
		if err != nil {
			return "", nil, fmt.Errorf("crontab %s is a symlink (%w); --in-place would replace the link with a file: wrap the file it points to", path, err)
		}
		return "", nil, fmt.Errorf("crontab %s is a symlink to %s; --in-place would replace the link with a file: wrap the file itself: catchup crontab wrap --in-place %s", path, target, target)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return "", nil, fmt.Errorf("crontab %s is not a regular file", path)
	}
	var was *syscall.Stat_t
	if read != nil {
		was, _ = read.Sys().(*syscall.Stat_t)
	}
	if was == nil || uint64(was.Dev) != uint64(st.Dev) || was.Ino != st.Ino {
		return "", nil, fmt.Errorf("crontab %s changed since it was read (replaced, or a directory on its way moved): nothing written; run wrap again", path)
	}
	uid, gid := int(st.Uid), int(st.Gid)
	perm := os.FileMode(st.Mode) & os.ModePerm
	if euid != 0 && uid != euid {
		return "", nil, fmt.Errorf("crontab %s is owned by uid %d, not by you (uid %d): rewritten, it would be yours, and cron refuses a crontab owned by another user than its own; run this as root (which keeps the owner) or as uid %d", path, uid, euid, uid)
	}
	keepGid := gid
	if euid != 0 && !inGroup(gid) {
		keepGid = -1 // it could not: the files get the caller's group
	}
	own := func(f *os.File) error {
		switch {
		case euid == 0:
			if err := f.Chown(uid, gid); err != nil {
				return fmt.Errorf("keep owner %d:%d: %w", uid, gid, err)
			}
		case keepGid >= 0:
			if err := f.Chown(-1, keepGid); err != nil {
				return fmt.Errorf("keep group %d: %w", keepGid, err)
			}
		}
		return nil
	}
	backup = path + BackupSuffix
	if err := dir.writeAtomic(base+BackupSuffix, old, perm, own); err != nil {
		return "", nil, fmt.Errorf("backup %s: %w", backup, err)
	}
	if err := dir.writeAtomic(base, []byte(text), perm, own); err != nil {
		return "", nil, fmt.Errorf("write %s: %w (the original is in %s)", path, err, backup)
	}
	if keepGid < 0 {
		now := "your group"
		var after unix.Stat_t
		if unix.Fstatat(dir.fd, base, &after, unix.AT_SYMLINK_NOFOLLOW) == nil {
			now = fmt.Sprintf("your group %d", after.Gid)
		}
		notes = append(notes, fmt.Sprintf("%s: its group %d could not be kept: you (uid %d) are not in it; %s and its backup now have %s", path, gid, euid, path, now))
	}
	return backup, notes, nil
}

// wrapDir is the directory of the crontab WriteWrapped rewrites, opened
// once (fd): every file it writes there is reached through it.
type wrapDir struct {
	fd   int
	path string
}

// writeAtomic writes data to a new file beside name, gives it mode and
// whatever prepare does (its owner), and renames it over name.
func (d wrapDir) writeAtomic(name string, data []byte, mode os.FileMode, prepare func(*os.File) error) error {
	var tmp string
	var fd int
	for i := 0; ; i++ {
		tmp = "." + name + "." + strconv.FormatUint(rand.Uint64(), 36)
		var err error
		fd, err = unix.Openat(d.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EEXIST) || i == 100 {
			return fmt.Errorf("create a file beside %s: %w", name, err)
		}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(filepath.Dir(d.path), tmp))
	renamed := false
	defer func() {
		if !renamed {
			unix.Unlinkat(d.fd, tmp, 0)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := prepare(f); err != nil {
		f.Close()
		return err
	}
	// After the chown, which may clear set-id bits.
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		return err
	}
	renamed = true
	return nil
}

// inGroup reports whether the calling process is in group gid, so may give
// its files to that group.
func inGroup(gid int) bool {
	if os.Getegid() == gid {
		return true
	}
	groups, _ := os.Getgroups()
	for _, g := range groups {
		if g == gid {
			return true
		}
	}
	return false
}
