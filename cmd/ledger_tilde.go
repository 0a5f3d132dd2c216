package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

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
