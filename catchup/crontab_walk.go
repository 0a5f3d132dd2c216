package catchup

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/catchup/catchup/internal/filetrust"
	"golang.org/x/sys/unix"
)

// maxSymlinks bounds the symlinks followed on one path, as the kernel does
// (ELOOP).
const maxSymlinks = 40

// A crontab is resolved, checked and opened in ONE walk over directory
// handles the walk holds open: each component is opened (O_PATH|O_NOFOLLOW)
// relative to the handle of the directory before it, every owner and mode
// checked is the fstat of the handle held, a symlink's target is read from
// the symlink's own handle, ".." goes back to the handle held for the
// parent, and the file is opened relative to the handle of its directory.
// Nothing is resolved again by path: a directory of another user's that is
// swapped with a symlink (or renamed) between two steps changes nothing of
// what the walk checked and read. (Resolving the path, then checking the
// names on it, let a user who owns a directory on the way exchange it with
// their symlink to root's directory: some interleavings read root's file
// while every check saw theirs.)

// walkedCrontab is what the walk found: the file, opened for reading and
// fstat'd, its real path, and every directory the walk went through.
type walkedCrontab struct {
	real string
	fd   *os.File
	fi   os.FileInfo
	dirs []walkedDir
	// given is a handle (O_PATH) of the directory the path's own name
	// was looked up in (a symlink's, when the name is one): where cron
	// finds the crontab, and the files beside it (CrontabBackups), kept
	// so that they are read there, never through the path again. The
	// caller closes it (close).
	given *os.File
}

// close closes what the walk left open.
func (w *walkedCrontab) close() {
	for _, f := range []*os.File{w.fd, w.given} {
		if f != nil {
			f.Close()
		}
	}
}

// walkedDir is a directory the walk went through, as its handle's fstat
// showed it. own: the crontab's name, or the name of a symlink that led to
// it, was looked up in it (the crontab's own directory, cron's rules say).
type walkedDir struct {
	path string
	fi   os.FileInfo
	own  bool
}

// heldDir is a directory handle (O_PATH) the walk holds.
type heldDir struct {
	f    *os.File
	path string
	fi   os.FileInfo
}

// walkOpen opens the file path leads to, following symlinks, in one walk
// over held handles. Every symlink on the way (the file's own, its
// directories', and those their targets lead through) must be owned by one
// of linkOwners: whoever owns a symlink can point it at another file at any
// time (one planted in a sticky /tmp), and every later scan would follow it.
// The directories are only recorded: which owners they may have depends on
// the file (checkWalkedDirs).
//
// Only the handles of the directories the walk is in are held (the stack):
// a symlink's handle is closed once its target is read, a directory's once
// ".." or an absolute target leaves it, so a long target ("d/../" over and
// over) costs no more descriptors than the depth it reaches.
func walkOpen(name, path string, linkOwners []int) (w walkedCrontab, err error) {
	var stack []heldDir
	defer func() {
		for _, d := range stack {
			d.f.Close()
		}
		if err != nil {
			w.close()
			w.fd, w.given = nil, nil
		}
	}()
	if !filepath.IsAbs(path) {
		if path, err = filepath.Abs(path); err != nil {
			return w, fmt.Errorf("%s: %w", name, err)
		}
	}
	rfd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return w, fmt.Errorf("%s: %w", name, &fs.PathError{Op: "open", Path: "/", Err: err})
	}
	root := heldDir{f: os.NewFile(uintptr(rfd), "/"), path: "/"}
	stack = []heldDir{root}
	if root.fi, err = root.f.Stat(); err != nil {
		return w, fmt.Errorf("%s: %w", name, err)
	}
	w.dirs = append(w.dirs, walkedDir{path: root.path, fi: root.fi})
	todo, links := strings.Split(path, "/"), 0
	for {
		todo = skipDots(todo)
		top := stack[len(stack)-1]
		if len(todo) == 0 { // the walk ended on a directory (path "/", "d/.."): refused as not a regular file
			return w, w.open(name, top, ".", top.path)
		}
		c, rest := todo[0], todo[1:]
		todo = skipDots(rest)
		// "c/" or "c/." names a directory: the kernel refuses a file so named (ENOTDIR)
		dirOnly := len(todo) == 0 && len(rest) > 0
		if c == ".." {
			if len(stack) > 1 {
				stack[len(stack)-1].f.Close()
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if len(todo) == 0 && w.given == nil { // the path's own name, looked up in top
			if w.given, err = dupHandle(top); err != nil {
				return w, fmt.Errorf("%s: %w", name, err)
			}
		}
		next := filepath.Join(top.path, c)
		f, fi, err := openAt(top.f, c, next, unix.O_PATH|unix.O_NOFOLLOW)
		if err != nil {
			return w, fmt.Errorf("%s: %w", name, err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := trustedLink(name, f, fi, next, linkOwners)
			f.Close()
			if err != nil {
				return w, err
			}
			if links++; links > maxSymlinks {
				return w, fmt.Errorf("%s: too many levels of symbolic links", name)
			}
			if len(todo) == 0 {
				w.dirs = append(w.dirs, walkedDir{path: top.path, fi: top.fi, own: true})
			}
			if dirOnly { // what the symlink leads to must be a directory too
				todo = []string{"."}
			}
			if filepath.IsAbs(target) {
				for _, d := range stack[1:] {
					d.f.Close()
				}
				stack = stack[:1]
			}
			todo = append(strings.Split(target, "/"), todo...)
			continue
		}
		if len(todo) == 0 && !(dirOnly && !fi.IsDir()) { // the crontab itself, in top
			f.Close()
			w.dirs = append(w.dirs, walkedDir{path: top.path, fi: top.fi, own: true})
			return w, w.open(name, top, c, next)
		}
		if !fi.IsDir() {
			f.Close()
			return w, fmt.Errorf("%s: %w", name, &fs.PathError{Op: "open", Path: next, Err: syscall.ENOTDIR})
		}
		stack = append(stack, heldDir{f: f, path: next, fi: fi})
		w.dirs = append(w.dirs, walkedDir{path: next, fi: fi})
	}
}

// open opens c in dir for reading, never through a symlink, and fstats the
// descriptor: what is checked is what is read.
func (w *walkedCrontab) open(name string, dir heldDir, c, real string) error {
	f, fi, err := openAt(dir.f, c, real, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	w.real, w.fd, w.fi = real, f, fi
	return nil
}

// dupHandle is a handle of its own on the directory d holds.
func dupHandle(d heldDir) (*os.File, error) {
	fd, err := unix.FcntlInt(d.f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "dup", Path: d.path, Err: err}
	}
	return os.NewFile(uintptr(fd), d.path), nil
}

// openAt opens c relative to the handle dir and fstats what it opened.
func openAt(dir *os.File, c, path string, flags int) (*os.File, os.FileInfo, error) {
	fd, err := unix.Openat(int(dir.Fd()), c, flags|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// trustedLink reads the target of the symlink whose own handle is f (fi
// its fstat), if one of linkOwners owns it.
func trustedLink(name string, f *os.File, fi os.FileInfo, path string, linkOwners []int) (string, error) {
	if o := filetrust.Owner(fi); !slices.Contains(linkOwners, o) {
		return "", &filetrust.Refusal{Name: name,
			Reason: fmt.Sprintf("%s is a symlink owned by %s, who could point it at another file", path, filetrust.Describe(o)),
			Fix:    "point scan at the file itself, or replace the symlink with one of " + ownerNames(linkOwners)}
	}
	target, err := readLinkOf(f, path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return target, nil
}

// readLinkOf reads the target of the symlink whose own handle
// (O_PATH|O_NOFOLLOW) is f.
func readLinkOf(f *os.File, path string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(int(f.Fd()), "", buf)
		if err != nil {
			return "", &fs.PathError{Op: "readlinkat", Path: path, Err: err}
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// skipDots drops the empty and "." components at the head of todo.
func skipDots(todo []string) []string {
	for len(todo) > 0 && (todo[0] == "" || todo[0] == ".") {
		todo = todo[1:]
	}
	return todo
}

// checkWalkedDirs refuses a crontab if someone other than owners owns a
// directory the walk went through, or can write one (and so replace the
// crontab or a symlink on its way), each judged by the fstat of the handle
// the walk held. Above the crontab's own directory a sticky one (/tmp) is
// fine: no one else can rename what is in it. The crontab's own directory
// may be sticky only with stickyOwn (a user crontab: the spool directory
// often is): another user could add a file there, never replace this one.
// The own directories are checked first, nearest the file.
func checkWalkedDirs(name string, dirs []walkedDir, stickyOwn bool, owners []int) error {
	for _, d := range slices.Backward(dirs) {
		if err := checkDir(name, d.path, d.fi, !d.own || stickyOwn, owners); err != nil {
			return err
		}
	}
	return nil
}
