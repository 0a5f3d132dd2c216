package crontab

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Duplicate is a file in a cron.d directory that cron reads and that holds
// job lines not run through catchup whose commands a crontab there runs
// through catchup: each of those commands runs twice, once without
// catchup, and no ledger sees that run. Typically the NAME.bak an older
// `catchup crontab wrap --in-place` left holding the original lines, or a
// copy under any other name; judged by content, never by name.
type Duplicate struct {
	Name       string // the file's name, in the directory
	Of         string // the crontab whose catchup commands it runs too
	Jobs       int    // its job lines, not run through catchup, that run such a command (>= 1)
	CronieOnly bool   // cronie reads it, Debian's cron does not (a name with a dot, or another character outside [A-Za-z0-9_-])
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

// DebianReads reports whether Debian's cron reads a file of this name in
// /etc/cron.d: only names of [A-Za-z0-9_-]+, never one with a dot. Every
// such name is one cronie reads too.
func DebianReads(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}

// DuplicatesOf finds, in the cron.d directory fsys, the files other than
// name that run a command the crontab name (whose text is text) runs
// through catchup: regular files either cron reads, each holding at least
// one job line not run through catchup whose command, trimmed, is the
// command after `catchup run ... --` of a line of text (a line Wrap made
// of a shell command compares as that command). Schedules are not
// compared: an edited one still runs the command twice. A file that
// cannot be read is not judged, nor is one larger than MaxSize (read no
// further: readBeside), nor are those past maxBeside files or past MaxSize
// bytes read in all. system is the format of them all (a user field).
// Sorted by name.
func DuplicatesOf(fsys fs.FS, name, text string, system bool) []Duplicate {
	wrapped := map[string]bool{}
	eachJob(text, system, func(cmd string, catchup bool) {
		if catchup {
			for _, c := range innerCommands(cmd) {
				wrapped[c] = true
			}
		}
	})
	if len(wrapped) == 0 {
		return nil
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil
	}
	var out []Duplicate
	budget, opened := int64(MaxSize), 0
	for _, e := range entries {
		n := e.Name()
		if n == name || !e.Type().IsRegular() || !CronieReads(n) {
			continue
		}
		if opened == maxBeside || budget <= 0 {
			break // the rest is not judged
		}
		opened++
		data, used, err := readBeside(fsys, n, budget)
		budget -= used
		if err != nil {
			continue
		}
		jobs := 0
		eachJob(string(data), system, func(cmd string, catchup bool) {
			if !catchup && wrapped[rawCommand(cmd)] {
				jobs++
			}
		})
		if jobs > 0 {
			out = append(out, Duplicate{Name: n, Of: name, Jobs: jobs, CronieOnly: !DebianReads(n)})
		}
	}
	slices.SortFunc(out, func(a, b Duplicate) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// readBeside reads the file name of fsys, a regular file of at most limit
// bytes (MaxSize at most), reading no more than one byte past it: one
// whose size is over limit is not read at all (a user's sparse file of
// gigabytes beside her crontab in her own cron.d directory), nor is
// anything but a regular file. used is how many bytes it read.
func readBeside(fsys fs.FS, name string, limit int64) (data []byte, used int64, err error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, 0, err
	case !fi.Mode().IsRegular():
		return nil, 0, fmt.Errorf("%s is not a regular file", name)
	case fi.Size() > min(limit, MaxSize):
		return nil, 0, ErrTooLarge
	}
	data, err = io.ReadAll(io.LimitReader(f, min(limit, MaxSize)+1))
	if err == nil && int64(len(data)) > min(limit, MaxSize) {
		return nil, int64(len(data)), ErrTooLarge
	}
	return data, int64(len(data)), err
}

// eachJob calls fn with the command part (as written, after the time
// fields and user) of each job line of text that runs at a time, and
// whether it runs catchup: the lines Wrap wraps, or has wrapped.
func eachJob(text string, system bool, fn func(cmd string, catchup bool)) {
	for _, line := range strings.Split(text, "\n") {
		line = cString(line) // as cron reads it: up to its first NUL
		s := strings.TrimLeft(line, " \t")
		if strings.TrimSpace(s) == "" || s[0] == '#' {
			continue
		}
		if _, _, ok := envLine(s); ok {
			continue
		}
		if _, cmd, ok := jobCommand(line, system); ok {
			fn(cmd, isCatchupCommand(cmd))
		}
	}
}

// rawCommand is the command cron passes to the shell for cmd (up to the
// first unescaped %, `\%` read as %), trimmed.
func rawCommand(cmd string) string {
	c, _, _ := splitPercent(cmd)
	return strings.TrimSpace(c)
}

// innerCommands are the forms of the command a catchup line's command
// part cmd runs after `catchup run [flags] --`, as rawCommand reads the
// line it was wrapped from: the text itself, trimmed, and, when it is
// `SHELL -c 'SCRIPT'` (how Wrap runs a command that is not a plain list of
// words), SCRIPT. None for a line that does not read as `catchup run`.
func innerCommands(cmd string) []string {
	lx := &lexer{s: rawCommand(cmd)}
	if w, ok, err := lx.next(); !ok || err != nil || !isCatchupWord(w) || !skipGlobals(&Entry{}, lx, newFlagsOnce()) {
		return nil
	}
	_, run, err := runLineFlags(&Entry{}, lx)
	if err != nil || run == "" {
		return nil
	}
	forms := []string{run}
	sh := &lexer{s: run}
	shell, ok0, err0 := sh.next()
	c, ok1, err1 := sh.next()
	script, ok2, err2 := sh.next()
	if ok0 && ok1 && ok2 && err0 == nil && err1 == nil && err2 == nil && isPlain(shell) && c == "-c" &&
		strings.TrimSpace(run[sh.i:]) == "" {
		forms = append(forms, strings.TrimSpace(script))
	}
	return forms
}

// maxBeside bounds how many files beside a crontab are read, as MaxSize
// bounds their bytes in all: a /etc/cron.d holds a few small files, and a
// user's cron.d directory, beside a crontab of hers a root scan reads, must
// not cost the scan more (thousands of sparse files of MaxSize took it
// minutes at every scan). The files past either bound are not judged.
const maxBeside = 1024
