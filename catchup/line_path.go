package catchup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// cronDefaultPath is the PATH cron gives a crontab line whose crontab sets
// none above it: Debian's cron and cronie's (glibc's _PATH_DEFPATH), for
// every user's lines, root's too. /etc/crontab sets its own PATH=.
const cronDefaultPath = "/usr/bin:/bin"

// cronPath is the PATH cron gives the line's fires: the crontab's PATH=
// above the line, else cron's default.
func (sr *shellReplay) cronPath() (path string, set bool) {
	path = cronDefaultPath
	for _, kv := range sr.vars {
		if k, v, _ := strings.Cut(kv, "="); k == "PATH" {
			path, set = v, true
		}
	}
	return path, set
}

// catchupMissing warns when another user's line, which scan replays with
// the PATH cron gives it (cronPath), names a catchup that this PATH does
// not find for that user: the line's fires under cron cannot find it
// either (exit 127, every slot missed), and neither can its replays. "" when
// it is found, or when the line is the scanning user's own (replayed with
// scan's PATH) or its first word is not plain (quoted, escaped: the
// shell's to read).
func (sr *shellReplay) catchupMissing() string {
	if sr.as == nil || sr.err != nil {
		return ""
	}
	words := strings.Fields(sr.command)
	if len(words) == 0 || strings.ContainsAny(words[0], "'\"\\$`") {
		return ""
	}
	first := words[0]
	path, set := sr.cronPath()
	var places []string
	if strings.Contains(first, "/") {
		places = []string{first}
	} else {
		for _, dir := range filepath.SplitList(path) {
			if dir == "" {
				dir = "." // the shell looks there, as cron's child runs it: in the line's home
			}
			places = append(places, filepath.Join(dir, first))
		}
	}
	cred, err := sr.credential()
	if err != nil {
		return ""
	}
	for _, p := range places {
		if !filepath.IsAbs(p) {
			p = filepath.Join(sr.dir, p)
		}
		found := onThreadAs(cred, func() error { return executableHere(p) })
		if found == nil {
			return ""
		}
	}
	if strings.Contains(first, "/") {
		return fmt.Sprintf("%s: the line runs %s, which %s cannot execute: its fires under cron fail (exit 126 or 127, every slot missed), "+
			"and so do its replays; fix: write the path of a catchup %s can run", sr.where, first, sr.user, sr.user)
	}
	whose := "cron's default, as the crontab sets no PATH= above the line"
	if set {
		whose = "the crontab's, above the line"
	}
	return fmt.Sprintf("%s: no directory of PATH=%s (%s) holds a catchup %s can run: the line's fires under cron cannot find it "+
		"(exit 127, every slot missed), and neither can its replays; fix: set PATH= above the line to directories that hold catchup "+
		"(PATH=/usr/local/bin:/usr/bin:/bin), or write catchup's full path in the line", sr.where, path, whose, sr.user)
}

// executableHere is nil when p is a regular file this thread's filesystem
// ids may execute.
func executableHere(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", p)
	}
	err = unix.Faccessat2(unix.AT_FDCWD, p, unix.X_OK, unix.AT_EACCESS) // the thread's ids, not the real ones
	if errors.Is(err, unix.ENOSYS) && fi.Mode().Perm()&0o111 != 0 {
		return nil // a kernel before 5.8: its modes say enough for a warning
	}
	return err
}
