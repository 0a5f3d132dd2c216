package catchup

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// lineMarkSuffix names, after a task's name in the lock directory, the
// file that says the task is a crontab line's: scan leaves it as it
// registers the line, and so does each fire of a task registered from a
// line that reads the ledger (markLineTask: a line root's scan registered
// for its user gets it from the user's own fires). A fire that cannot read the ledger
// cannot read whether its task has a line either, and applies the line's
// twin rule (lineTwinOf) only to a task so marked: a task run ad hoc, with
// no line, has none, and two runs of it in a minute both run, as they do
// with the ledger reachable (each stands for no slot). A mark outlives its
// line (a line removed, a task forgotten): the rule then still holds for
// runs of that name without --manual, which its message names.
const lineMarkSuffix = ".line"

// markLineTask leaves task's mark (lineMarkSuffix) in m's lock directory,
// as openLockFile makes a lock file (the directory and the file this
// user's own, no symlink), holding path, the crontab file of its line
// (markedLineSchedule). A fire makes it only when there is none, or an
// empty one (an older catchup's): one lstat; scan (rewrite) also when it
// names another file. Best effort: without it, a twin runs.
func markLineTask(m Machine, task, path string, rewrite bool) {
	mark := filepath.Join(m.LockDir, task+lineMarkSuffix)
	if fi, err := os.Lstat(mark); err == nil && fi.Size() > 0 && !rewrite {
		return
	}
	f, err := openLockFile(m.LockDir, task, lineMarkSuffix, m.UID)
	if err != nil {
		return
	}
	defer f.f.Close()
	if b, err := os.ReadFile(mark); err == nil && string(b) == path {
		return
	}
	if f.f.Truncate(0) == nil {
		f.f.WriteAt([]byte(path), 0)
	}
}

// markedLineSchedule is the schedule of this fire's line as it reads now,
// in the zone cron fires it in (lineZoneOf), re-read from the crontab file
// its mark names (markLineTask), with scan's checks of that file; nil when
// it cannot be (no mark, an older one, a file this user cannot read or
// refuses, no line of the task there).
func (l *lifecycle) markedLineSchedule() *schedule.Schedule {
	b, err := os.ReadFile(filepath.Join(l.m.LockDir, l.req.Task+lineMarkSuffix))
	path := string(b)
	if err != nil || !filepath.IsAbs(path) || strings.ContainsAny(path, "\x00\n") {
		return nil
	}
	se, sr := newCrontabs(l.m).findLine(store.Task{Name: l.req.Task, Source: "crontab:" + path + ":0"})
	if sr != nil {
		return nil
	}
	var s *schedule.Schedule
	read := func() (err error) { // another user's zone file as that user (a root fire)
		zone, _ := lineZoneOf(l.m, se.Entry)
		s, err = parseSchedule(se.Expr, zone)
		return err
	}
	if lineZoneReader(l.m, se).readAs(read, se.Zone, se.TZ) != nil {
		return nil
	}
	return s
}

// lineTask reports whether task carries its mark of a crontab line's task
// in m's lock directory, a file of this user's own (markLineTask).
func lineTask(m Machine, task string) bool {
	path := filepath.Join(m.LockDir, task+lineMarkSuffix)
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && filetrust.Private("line mark "+path, path, fi, m.UID) == nil
}
