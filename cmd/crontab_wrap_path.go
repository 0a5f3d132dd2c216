package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/catchup/crontab"
)

// warnPathWithoutCatchup warns, once per PATH= line, when no directory of
// the PATH= in effect for wrapped lines holds an executable catchup: cron
// runs a wrapped line's "catchup" found there, and each would exit 127,
// every slot missed with only cron's mail to tell. Lines under no PATH=
// run with cron's default, cronDefaultPath: the packages install catchup
// in /usr/bin, but one built from source and put in /usr/local/bin is not
// found there.
func warnPathWithoutCatchup(w io.Writer, name string, changes []crontab.Change) {
	counts := map[int]int{}
	var order []crontab.Change
	for _, ch := range changes {
		if ch.PathLine == 0 {
			counts[0]++
			continue
		}
		if counts[ch.PathLine] == 0 {
			order = append(order, ch)
		}
		counts[ch.PathLine]++
	}
	if def := cronDefaultPath(); counts[0] > 0 && !pathHoldsCatchup(def) {
		where := ""
		if exe, err := os.Executable(); err == nil {
			where = " (" + filepath.Dir(exe) + ")"
		}
		them, run, they, those := "them", "run", "they", "those lines"
		if counts[0] == 1 {
			them, run, they, those = "it", "runs", "it", "that line"
		}
		fmt.Fprintf(w, "catchup: warning: %s: the %s wrapped with no PATH= line above %s %s with cron's default PATH=%s, which holds no catchup: "+
			"under cron %s would exit 127, every slot missed; fix: add a PATH= line naming catchup's directory%s above %s, "+
			"or write catchup's full path in %s\n", name, counted(counts[0], "line", "lines"), them, run, printable(def), they, printable(where), them, those)
	}
	for _, ch := range order {
		if pathHoldsCatchup(ch.Path) {
			continue
		}
		fmt.Fprintf(w, "catchup: warning: %s: line %d: PATH=%s holds no catchup: the %s wrapped under it would not find catchup under cron "+
			"(exit 127, every slot missed); fix: add catchup's directory to this PATH=, or write catchup's full path in those lines\n",
			name, ch.PathLine, printable(ch.Path), counted(counts[ch.PathLine], "line", "lines"))
	}
}

// cronDefaultPath is the PATH cron runs a line with when its crontab sets
// none: cronie's and Debian cron's _PATH_DEFPATH, or the test hook
// CATCHUP_CRON_PATH (a test's catchup is not in /usr/bin).
func cronDefaultPath() string {
	if p := os.Getenv("CATCHUP_CRON_PATH"); p != "" {
		return p
	}
	return "/usr/bin:/bin"
}

// pathHoldsCatchup reports whether a directory of path (a crontab's PATH=,
// which cron does not expand: an empty entry or a relative one is looked
// up as cron's child would, from its working directory) holds an
// executable regular file named catchup.
func pathHoldsCatchup(path string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		fi, err := os.Stat(filepath.Join(dir, "catchup"))
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return true
		}
	}
	return false
}
