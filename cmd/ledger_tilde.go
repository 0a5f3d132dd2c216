package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/catchup/catchup/store"
)

// refuseOddPath refuses a ledger location or state directory (value, set
// by name: "--db", "CATCHUP_DB", "CATCHUP_STATE_DIR") that no one meant as
// it reads: a control character in it (the \r of a crontab saved with CRLF
// line ends), or a ~ that nothing expanded (refuseTilde). A postgres:// URL
// is left to its parse, which refuses one so without showing its password.
func refuseOddPath(name, value string, getenv func(string) string) error {
	if store.IsPostgres(value) {
		return nil
	}
	sep := "="
	if strings.HasPrefix(name, "--") {
		sep = " "
	}
	if strings.IndexFunc(value, unicode.IsControl) >= 0 {
		shown := strconv.Quote(value)
		if strings.Contains(value, "@") {
			// a URL with its scheme mistyped (pg://u:PW@db/x\r): its
			// password would be shown
			shown = "(a value with an @, not shown: it may hold a password)"
		}
		return fmt.Errorf("%s%s%s holds a control character (a crontab saved with CRLF line ends?): write it in printable characters",
			name, sep, shown)
	}
	return refuseTilde(name+sep+value, value, getenv)
}

// refuseTilde refuses a location (a ledger's, given as what, "--db X" or
// "CATCHUP_DB=X") that starts with a ~ nothing expanded: cron expands no ~
// in CATCHUP_DB=~/x.db, nor does a shell in quotes or after --db=. Read as
// it is, it named a directory ~ in the working directory, which catchup
// made, and a ledger there that no scan reads. One that exists (made so
// before) is still read as it is.
func refuseTilde(what, path string, getenv func(string) string) error {
	p := strings.TrimPrefix(path, "file:")
	if !strings.HasPrefix(p, "~") {
		return nil
	}
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	fix := "write the full path"
	if rest, ok := strings.CutPrefix(p, "~/"); ok && filepath.IsAbs(getenv("HOME")) {
		fix += ", such as " + filepath.Join(getenv("HOME"), rest)
	} else if p == "~" && filepath.IsAbs(getenv("HOME")) {
		fix += ", such as " + getenv("HOME")
	}
	return fmt.Errorf("%s: nothing expanded its ~ (cron does not, nor does a shell in quotes or after --db=): %s",
		printable(what), printable(fix))
}

// refuseRelativeStateDir refuses a relative CATCHUP_STATE_DIR that names no
// directory: read as it is, it made catchup's directory, and the default
// ledger in it, under the working directory, which is the user's home under
// cron and / for a scan started by systemd, so scan read another ledger.
// One that exists (made so before) is still read as it is.
func refuseRelativeStateDir(dir string) error {
	if filepath.IsAbs(dir) {
		return nil
	}
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	fix := "write the full path"
	if abs, err := filepath.Abs(dir); err == nil {
		fix += ", such as " + abs
	}
	return fmt.Errorf("CATCHUP_STATE_DIR=%s is not an absolute path, so catchup's directory and its ledger would be "+
		"under the working directory, another for cron than for scan: %s", dir, fix)
}
