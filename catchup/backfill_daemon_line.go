package catchup

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/store"
)

// daemonLineEnv is the environment a catchup daemon gives task t's line
// (its crontab's variables, its SHELL and HOME), read from the crontab the
// task's source names, for backfill to run the line as the daemon runs it:
// the ledger keeps no variable (X4). nil for a task that is no daemon
// line. The crontab is read as the daemon reads it (OpenOwnCrontab): a
// crontab that cannot be read, has lost the line, or whose line no longer
// runs the registered command is an error naming the fix, never a run
// without the variables.
func daemonLineEnv(m Machine, t store.Task) ([]string, error) {
	if !strings.HasPrefix(t.Source, "daemon:") {
		return nil, nil
	}
	where := daemonLine(t)
	path := where
	if i := strings.LastIndex(where, ":"); i > 0 {
		path = where[:i]
	}
	cannot := func(why string) error {
		return fmt.Errorf("task %s is a line of a catchup daemon's crontab (%s): %s; backfill runs the line with "+
			"that crontab's variables, as the daemon does, and will not run it without them", t.Name, where, why)
	}
	data, err := OpenOwnCrontab(path, m.UID)
	if err != nil {
		return nil, cannot(err.Error())
	}
	jobs, errs, more := crontab.ParseJobsUpTo(bytes.NewReader(data), path, crontab.MaxCatchupLines)
	if more {
		return nil, cannot(crontab.TooManyJobs(path).Error())
	}
	if len(errs) > 0 {
		return nil, cannot(fmt.Sprintf("the crontab does not read (%v)", errs[0]))
	}
	for _, j := range jobs {
		if j.Task != t.Name {
			continue
		}
		if len(t.Argv) != 3 || t.Argv[2] != crontab.Redacted(j.Run) {
			return nil, cannot("its line there runs another command now: reload the daemon (SIGHUP), which registers it, then backfill")
		}
		return append([]string{"SHELL=" + t.Argv[0], "HOME=" + t.Dir}, j.Env...), nil
	}
	return nil, cannot("the line is no longer there")
}
