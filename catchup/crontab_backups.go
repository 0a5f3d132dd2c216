package catchup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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
	for _, d := range crontab.DuplicatesOf(cronDir(dir), filepath.Base(path), text, system) {
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
// beside it: they are listed by type, then opened, and one swapped for a
// FIFO in between (the directory may be a user's: ~/cron.d) must not block
// the scan, nor one swapped for a symlink lead it elsewhere. So a file is
// opened without blocking or following a symlink (the directory itself
// is reached as the crontab's path reaches it), and anything but a
// regular file or a directory is closed unread.
type cronDir string

func (d cronDir) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if name != "." { // the directory itself as the crontab's path reached it
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(filepath.Join(string(d), name), flags, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() && !fi.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a regular file")}
	}
	return f, nil
}
