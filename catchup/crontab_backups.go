package catchup

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/catchup/crontab"
)

// CrontabBackups are the warnings about the copies of the crontab at path
// that cron runs too (crontab.BackupsOf): a file in a cron.d directory
// named like path.bak, left by an older `crontab wrap --in-place` or by
// hand, holding the lines path now wraps. cronie reads it, so each of its
// jobs runs twice, once without catchup, and no ledger sees that run. A
// path in no cron.d directory has none: cron reads a spool crontab only
// under its user's name, and /etc/crontab only under its own. system is
// the format the copies are read in. One warning per copy, naming the fix.
func CrontabBackups(path string, system bool) (backups []string, warnings []string) {
	dir := filepath.Dir(path)
	if path == "" || !crontab.IsCronDir(dir) {
		return nil, nil
	}
	for _, b := range crontab.BackupsOf(os.DirFS(dir), filepath.Base(path), system) {
		p := filepath.Join(dir, b.Name)
		backups = append(backups, p)
		warnings = append(warnings, fmt.Sprintf("%s: cron runs this backup of %s too: %s twice, once without catchup "+
			"(cronie reads every file in %s but names starting with . or ending in ~); remove it, or rename it to %s~",
			p, b.Of, jobsRunning(b.Jobs), dir, b.Name))
	}
	return backups, warnings
}

// jobsRunning says how many job lines a backup holds, as the subject of "run".
func jobsRunning(n int) string {
	switch n {
	case -1:
		return "the jobs it holds (catchup could not read it) run"
	case 1:
		return "its 1 job line runs"
	}
	return fmt.Sprintf("its %d job lines run", n)
}
