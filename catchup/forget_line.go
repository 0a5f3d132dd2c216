package catchup

import (
	"bytes"
	"strings"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/store"
)

// noticeLineStill tells, as forget retires task t, that its line is still
// in the crontab it was registered from, when this host can read that
// crontab: the line's next fire (or scan --crontab of the file, or a
// catchup daemon's reload) registers the task again, undoing the forget
// without a word. A line gone, or a crontab this host cannot read (another
// host's, on a shared ledger), says nothing.
func noticeLineStill(m Machine, t store.Task) {
	switch {
	case strings.HasPrefix(t.Source, "crontab:"):
		se, gone := newCrontabs(m).findLine(t)
		if gone == nil {
			m.notice("task %s: its line is still in %s:%d: its next fire, or the next scan --crontab of that file, "+
				"registers the task again; remove the line first", t.Name, se.path, se.Line)
		}
	case strings.HasPrefix(t.Source, "daemon:"):
		where := daemonLine(t)
		path := where[:max(strings.LastIndex(where, ":"), 0)]
		data, err := OpenOwnCrontab(path, m.UID)
		if err != nil {
			return
		}
		jobs, _ := crontab.ParseJobs(bytes.NewReader(data), path)
		for _, j := range jobs {
			if j.Task == t.Name {
				m.notice("task %s: its line is still in %s:%d: the daemon's reload or next start registers the task again; "+
					"remove the line first", t.Name, path, j.Line)
				return
			}
		}
	}
}
