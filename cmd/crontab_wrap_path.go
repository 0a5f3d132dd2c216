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
// every slot missed with only cron's mail to tell. No PATH= (cron's
// default) is not checked: the packages install catchup in /usr/bin.
func warnPathWithoutCatchup(w io.Writer, name string, changes []crontab.Change) {
	counts := map[int]int{}
	var order []crontab.Change
	for _, ch := range changes {
		if ch.PathLine == 0 {
			continue
		}
		if counts[ch.PathLine] == 0 {
			order = append(order, ch)
		}
		counts[ch.PathLine]++
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
