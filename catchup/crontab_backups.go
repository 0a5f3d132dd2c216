package catchup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/catchup/catchup/catchup/crontab"
)

// CrontabBackups are the warnings about the files beside the crontab at
// path that cron runs too and that run, not through catchup, a command
// path runs through catchup (crontab.DuplicatesOf): the NAME.bak an older
// `crontab wrap --in-place` left holding the original lines, or a copy by
// hand under any name. Each such command runs twice, once without catchup,
// and no ledger sees that run. text is what path holds (for crontab wrap:
// what it will hold, wrapped). A path in no cron.d directory has none:
// cron reads a spool crontab only under its user's name, and /etc/crontab
// only under its own. system is the format of the files. One warning per
// file, naming the fix.
func CrontabBackups(path, text string, system bool) (backups []string, warnings []string) {
	dir := filepath.Dir(path)
	if path == "" || !crontab.IsCronDir(dir) {
		return nil, nil
	}
	cd, err := openCronDir(dir)
	if err != nil {
		return nil, nil
	}
	defer cd.Close()
	return cd.backups(path, text, system)
}

// crontabBackupsIn is CrontabBackups, the files beside the crontab read in
// the directory held (O_PATH) by given, the one the crontab's own walk
// found it in (openCrontabIn), never reached by its path again: its user
// could swap it meanwhile for a symlink to a directory of root's, which a
// root scan then listed and read, and told in its warnings which of its
// files run which command.
func crontabBackupsIn(given *os.File, path, text string, system bool) (backups []string, warnings []string) {
	if given == nil || path == "" || !crontab.IsCronDir(filepath.Dir(path)) {
		return nil, nil
	}
	fd, err := unix.Openat(int(given.Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil
	}
	cd := cronDir{os.NewFile(uintptr(fd), filepath.Dir(path))}
	defer cd.Close()
	return cd.backups(path, text, system)
}

// backups is CrontabBackups in the directory d.
func (cd cronDir) backups(path, text string, system bool) (backups []string, warnings []string) {
	dir := filepath.Dir(path)
	for _, d := range crontab.DuplicatesOf(cd, filepath.Base(path), text, system) {
		p := filepath.Join(dir, d.Name)
		who := "cron runs this file too"
		switch {
		case d.CronieOnly && strings.Contains(d.Name, "."):
			who = "cronie runs this file too (Debian's cron does not: its name has a dot)"
		case d.CronieOnly:
			who = "cronie runs this file too (Debian's cron does not: its name has a character outside [A-Za-z0-9_-])"
		}
		backups = append(backups, p)
		warnings = append(warnings, fmt.Sprintf("%s: %s, and %s %s runs through catchup: %s twice, once without catchup; "+
			"remove the duplicate lines, or rename the file to a name ending in ~ (%s~)",
			p, who, duplicateLines(d.Jobs), path, pronounRuns(d.Jobs), d.Name))
	}
	return backups, warnings
}

// duplicateLines says how many job lines of a duplicate run a command of
// the crontab, up to the crontab's name.
func duplicateLines(n int) string {
	if n == 1 {
		return "1 job line in it runs a command that"
	}
	return fmt.Sprintf("%d job lines in it run commands that", n)
}

// pronounRuns is the subject and verb for the duplicated commands.
func pronounRuns(n int) string {
	if n == 1 {
		return "it runs"
	}
	return "they run"
}

// cronDir is the directory of a crontab, as CrontabBackups reads the files
// beside it: they are listed by type, then opened. The directory may be a
// user's (~/cron.d), who can swap a file for a FIFO in between (which must
// not block the scan), or a symlink (which must not lead it elsewhere), or
// the directory itself for a symlink to another, /dev, where the name
// listed is a device whose open acts (/dev/watchdog arms the host's
// reboot). So the directory is opened once (as the crontab's path reaches
// it), each file is reached from it without following a symlink, into a
// descriptor that opens nothing (O_PATH), and opened (through
// /proc/self/fd, the same file) only when it is a regular file or a
// directory, without blocking.
type cronDir struct {
	f *os.File
}

// openCronDir opens the directory dir for CrontabBackups.
func openCronDir(dir string) (cronDir, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	return cronDir{f}, err
}

func (d cronDir) Close() error { return d.f.Close() }

func (d cronDir) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	pfd, err := unix.Openat(int(d.f.Fd()), name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFREG && t != unix.S_IFDIR {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a regular file")}
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pfd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.f.Name(), name)), nil
}
