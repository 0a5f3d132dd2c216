package catchup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// crontabs reads each crontab once per scan, through cron's own checks
// (OpenCrontab): the files given to scan, and those that registered tasks
// were found in, which every later scan reads again to replay their lines.
// A refused file is one warning, and none of its lines runs.
type crontabs struct {
	m        Machine
	read     map[string]*crontabRead
	warnings []string
	refused  int
	// backups are the files beside a read crontab that cron runs too and
	// that run its commands without catchup (CrontabBackups), each warned
	// about once.
	backups map[string]bool
	// tolerance is the scan's (--tolerance): how late cron may fire a
	// line, for the slots a line's change leaves to the edited line.
	tolerance time.Duration
}

// crontabRead is one crontab as read by this scan.
type crontabRead struct {
	user    string // a user crontab's user; "" for a system crontab
	spool   bool   // the crontab is in cron's spool (CrontabFile.Spool)
	entries []crontab.Entry
	errs    []error        // malformed catchup lines
	err     error          // refused, or unreadable
	byTask  map[string]int // the index in entries of each task's first line (findLine), made at the first look
}

// sourcedEntry is a crontab line with the file it came from and the user
// that file belongs to ("" for a system crontab or stdin).
type sourcedEntry struct {
	crontab.Entry
	path  string
	user  string
	spool bool // the file is in cron's spool: its lines run in user's passwd home
}

func newCrontabs(m Machine) *crontabs {
	return &crontabs{m: m, read: map[string]*crontabRead{}, backups: map[string]bool{}, tolerance: DefaultTolerance}
}

// file reads the crontab at path, once per scan.
func (c *crontabs) file(path string) *crontabRead {
	if r, ok := c.read[path]; ok {
		return r
	}
	r := &crontabRead{}
	c.read[path] = r
	f, dir, err := openCrontabIn(path, c.m.UID)
	if err == nil { // a crontab not read has none
		c.checkBackups(dir, path, string(f.Data), f.System || crontab.IsSystem(path))
		dir.Close()
	}
	if err == nil {
		err = c.ownLines(f)
	}
	if err != nil {
		r.err = err
		if errors.Is(err, filetrust.ErrRefused) {
			c.refused++
			c.warnings = append(c.warnings, err.Error())
		}
		return r
	}
	r.user, r.spool = f.User, f.Spool
	c.parseCapped(r, path, f)
	return r
}

// checkBackups warns, once per file, of each file beside the crontab at
// path, holding text, that cron runs too and that runs a command of it
// without catchup (CrontabBackups), read in the directory dir holds, the
// one the crontab's walk found it in (crontabBackupsIn).
func (c *crontabs) checkBackups(dir *os.File, path, text string, system bool) {
	backups, warnings := crontabBackupsIn(dir, path, text, system)
	for i, b := range backups {
		if !c.backups[b] {
			c.backups[b] = true
			c.warnings = append(c.warnings, warnings[i])
		}
	}
}

// ownLines refuses a user crontab of another user to a scan not run by
// root: such a scan replays its own user's lines only.
func (c *crontabs) ownLines(f CrontabFile) error {
	if c.m.UID == 0 || f.User == "" {
		return nil
	}
	me := filetrust.UserName(c.m.UID)
	if f.User == me {
		return nil
	}
	if me == "" {
		me = fmt.Sprintf("uid %d", c.m.UID)
	}
	return &filetrust.Refusal{Name: "crontab " + f.Path,
		Reason: fmt.Sprintf("it belongs to %s, and a scan run as %s replays only %s's lines", f.User, me, me),
		Fix:    "run catchup scan as " + f.User}
}

// discover reads every crontab given to scan; malformed catchup lines
// become warnings (each a refused line: scan exits 1), and so do refused
// files. A file that cannot be read at
// all is an error. Of two lines naming one task, the scanning user's own
// is kept over another user's, whatever the order of the files: else a
// user's crontab listed first kept root's line from registering.
func (c *crontabs) discover(srcs []CrontabSource) ([]sourcedEntry, []string, error) {
	var all []sourcedEntry
	var warnings []string
	for _, src := range srcs {
		r := &crontabRead{}
		if src.R != nil {
			r.entries, r.errs = crontab.Parse(src.R, src.Name, src.System)
		} else if r = c.file(src.Path); r.err != nil {
			if errors.Is(r.err, filetrust.ErrRefused) {
				continue
			}
			if errors.Is(r.err, fs.ErrNotExist) {
				return nil, nil, fmt.Errorf("read crontab: %w (check the path given to --crontab; crontab -l lists your own)", r.err)
			}
			return nil, nil, fmt.Errorf("read crontab: %w", r.err)
		}
		for _, e := range r.entries {
			e.File = src.Name
			all = append(all, sourcedEntry{e, src.Path, r.user, r.spool})
		}
		for _, err := range r.errs {
			warnings = append(warnings, strings.Replace(err.Error(), src.Path, src.Name, 1))
		}
	}
	me := filetrust.UserName(c.m.UID)
	slices.SortStableFunc(all, func(a, b sourcedEntry) int {
		return cmpBool(lineUserName(c.m, b) == me, lineUserName(c.m, a) == me)
	})
	var entries []sourcedEntry
	byTask := map[string]int{} // the index in entries of each task's line: no line compared with all before it
	for _, se := range all {
		e := se.Entry
		if i, seen := byTask[e.Task]; seen && !sameJob(entries[i].Entry, e) {
			first := entries[i].Entry
			// Two different lines for one task flipped its registration at
			// every scan, each time counting it from now: the slots missed
			// before were never looked for, and one line's fires were the
			// other's duplicates. An identical line (a crontab installed
			// twice) is the same task: its twin fires are duplicates.
			warnings = append(warnings, fmt.Sprintf("%s:%d: task %s is also the line at %s:%d, with another schedule, zone, variables or command: "+
				"scan does not register this line (give it its own --task)", e.File, e.Line, e.Task, first.File, first.Line))
			continue
		}
		if _, seen := byTask[e.Task]; !seen {
			byTask[e.Task] = len(entries)
		}
		entries = append(entries, se)
	}
	return entries, warnings, nil
}

// cmpBool orders true before false.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// shellReplay re-reads the crontab a task was discovered in, for a scan
// that was not given that crontab. A task that cannot be replayed gets a
// shellReplay whose err says why.
func (c *crontabs) shellReplay(t store.Task) *shellReplay {
	se, sr := c.findLine(t)
	if sr != nil {
		return sr
	}
	return c.registeredReplay(t, se)
}

// registeredReplay is the replay of task t through its re-read line se, as
// registered (its zone the registered one unless the line names one).
func (c *crontabs) registeredReplay(t store.Task, se sourcedEntry) *shellReplay {
	// Whom it runs as first, as registerEntry: another user's refused line
	// has no zone path checked with this scan's rights.
	sr, err := newShellReplay(c.m, se)
	if err != nil {
		return &shellReplay{err: fmt.Errorf("%s:%d: %w", se.path, se.Line, err)}
	}
	// Its zones as its user's fire reads them (zoneReader): the registered
	// one too, which a line naming none is checked in.
	if _, err := c.m.asUser.checkFiredAs(sr.zoneReader(), se.Entry, t.TZ); err != nil {
		return &shellReplay{err: fmt.Errorf("%s:%d: %w", se.path, se.Line, err)}
	}
	return sr
}

// findLine finds the line of task t, registered from a crontab, in that
// crontab, matched by the task's name (never by its line number: the line
// now there may be another task's). When it is not found, or the file
// cannot be read, the shellReplay says why (gone: the line or the file
// is gone).
func (c *crontabs) findLine(t store.Task) (sourcedEntry, *shellReplay) {
	src, ok := strings.CutPrefix(t.Source, "crontab:")
	if !ok {
		return sourcedEntry{}, &shellReplay{err: fmt.Errorf("task %s has no command to replay", t.Name)}
	}
	path := src[:strings.LastIndex(src, ":")]
	r := c.file(path)
	if path != "" && errors.Is(r.err, fs.ErrNotExist) { // "": found on stdin, never re-read
		return sourcedEntry{}, &shellReplay{gone: path, err: fmt.Errorf("task %s: %s is gone", t.Name, path)}
	}
	if r.err != nil {
		if errors.Is(r.err, filetrust.ErrRefused) {
			return sourcedEntry{}, &shellReplay{err: r.err}
		}
		return sourcedEntry{}, &shellReplay{err: fmt.Errorf("task %s: re-read its crontab: %w; pass it with --crontab", t.Name, r.err)}
	}
	if r.byTask == nil { // one pass, not one per task: the readers and scan look up every line's task
		r.byTask = make(map[string]int, len(r.entries))
		for i, e := range r.entries {
			if _, seen := r.byTask[e.Task]; !seen {
				r.byTask[e.Task] = i
			}
		}
	}
	if i, ok := r.byTask[t.Name]; ok {
		e := r.entries[i]
		e.File = path
		return sourcedEntry{e, path, r.user, r.spool}, nil
	}
	if len(r.errs) > 0 { // its line may be one of them, broken by an edit: not gone
		why := make([]string, len(r.errs))
		for i, err := range r.errs {
			why[i] = err.Error()
		}
		return sourcedEntry{}, &shellReplay{err: fmt.Errorf("task %s: not found in %s, whose catchup lines do not all parse (%s): %w",
			t.Name, path, strings.Join(why, "; "), lineRefusal("fix them, or remove the task's line"))}
	}
	return sourcedEntry{}, &shellReplay{gone: path, err: fmt.Errorf("task %s: no longer in %s", t.Name, path)}
}

// twinLine finds, in the crontab of task t's registered line se, another
// line naming t that is not the same job (one scan refuses) and whose
// schedule, in its zone, is at now: a fire at now off t's schedule is
// that line's, not a late fire of se's slot.
func (c *crontabs) twinLine(t store.Task, se sourcedEntry, now time.Time) (crontab.Entry, bool) {
	r := c.file(se.path)
	if r.err != nil {
		return crontab.Entry{}, false
	}
	for _, e := range r.entries {
		if e.Task != t.Name || sameJob(se.Entry, e) {
			continue
		}
		twin := sourcedEntry{Entry: e, path: se.path, user: se.user, spool: se.spool}
		if zonePathRefused(c.m, twin) {
			continue // its fires run nothing, and its zone is not root's to read
		}
		var loc *time.Location
		r, zone := lineZoneReader(c.m, twin, t.TZ), t.TZ // its zones as its user's fire reads them
		if r.readAs(func() (err error) { loc, err = schedule.LoadZone(firedZone(e, zone)); return err }, e.Zone, e.TZ, zone) != nil {
			continue
		}
		if s, err := schedule.Parse(e.Expr, loc); err == nil && s.Matches(now) {
			e.File = se.path
			return e, true
		}
	}
	return crontab.Entry{}, false
}
