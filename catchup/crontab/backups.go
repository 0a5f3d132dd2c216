package crontab

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// backupWords name a copy of a crontab when one is a dot-separated part of
// what follows the crontab's name and a dot: NAME.bak, NAME.orig,
// NAME.old, NAME.save, NAME.backup, NAME.bak.1, NAME.2026-03-01.old.
// `catchup crontab wrap --in-place` wrote NAME.bak before it wrote NAME.bak~.
var backupWords = []string{"bak", "orig", "old", "save", "backup"}

// Backup is a file in a cron.d directory that cron reads and whose name
// says it is a copy of another crontab there: the jobs it holds run beside
// that crontab's, once more, and not through catchup.
type Backup struct {
	Name string // the backup's file name, in the directory
	Of   string // the crontab it is a copy of
	Jobs int    // its job lines that do not run catchup; -1: it could not be read
}

// IsCronDir reports whether cron reads every file in dir as a system
// crontab: SystemDir (/etc/cron.d), or any directory named cron.d (a
// chroot's or a container image's /etc/cron.d).
func IsCronDir(dir string) bool {
	d := filepath.Clean(dir)
	return d == filepath.Clean(SystemDir) || filepath.Base(d) == "cron.d"
}

// CronieReads reports whether cronie reads a file of this name in
// /etc/cron.d: its not_a_crontab (src/database.c) skips names starting
// with "." or "#", and ending in "~", ".rpmsave", ".rpmorig" or ".rpmnew".
// Debian's cron reads only names of [A-Za-z0-9_-], never a name with a dot.
func CronieReads(name string) bool {
	if name == "" || name[0] == '.' || name[0] == '#' {
		return false
	}
	for _, suffix := range []string{"~", ".rpmsave", ".rpmorig", ".rpmnew"} {
		if strings.HasSuffix(name, suffix) {
			return false
		}
	}
	return true
}

// BackupsOf finds, in the cron.d directory fsys, the backups that concern
// the crontab name: the copies of it (name.bak...), or, when name is
// itself a copy of another crontab there, name. A backup is a regular file
// cronie reads (CronieReads) holding at least one job line that does not
// run catchup; one that holds none runs nothing catchup does not know of.
// system is the format to read them in (a user field). Sorted by name.
func BackupsOf(fsys fs.FS, name string, system bool) []Backup {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil
	}
	regular := map[string]bool{}
	for _, e := range entries {
		regular[e.Name()] = e.Type().IsRegular()
	}
	var out []Backup
	add := func(backup, of string) {
		if !regular[backup] || !regular[of] || !CronieReads(backup) {
			return
		}
		jobs := -1
		if data, err := fs.ReadFile(fsys, backup); err == nil {
			if jobs = rawJobs(string(data), system); jobs == 0 {
				return
			}
		}
		out = append(out, Backup{Name: backup, Of: of, Jobs: jobs})
	}
	for _, e := range entries {
		if isCopyOf(e.Name(), name) {
			add(e.Name(), name)
		}
	}
	for i := strings.IndexByte(name, '.'); i > 0; i = nextDot(name, i) {
		if isCopyOf(name, name[:i]) {
			add(name, name[:i])
			break
		}
	}
	slices.SortFunc(out, func(a, b Backup) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// nextDot is the index of the next "." in s after i, or -1.
func nextDot(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '.')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// isCopyOf reports whether the name copy says it is a backup of crontab:
// crontab, a dot, and a backup word among the dot-separated parts after.
func isCopyOf(copy, crontab string) bool {
	rest, ok := strings.CutPrefix(copy, crontab+".")
	if !ok || crontab == "" {
		return false
	}
	for _, part := range strings.Split(rest, ".") {
		if slices.Contains(backupWords, strings.ToLower(part)) {
			return true
		}
	}
	return false
}

// rawJobs counts the job lines of text that run at a time and do not run
// catchup: the lines Wrap would wrap, or leave for a reason it notes.
func rawJobs(text string, system bool) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		s := strings.TrimLeft(line, " \t")
		if strings.TrimSpace(s) == "" || s[0] == '#' {
			continue
		}
		if _, _, ok := envLine(s); ok {
			continue
		}
		if _, cmd, ok := jobCommand(cString(line), system); ok && !isCatchupCommand(cmd) {
			n++
		}
	}
	return n
}
