package catchup

import (
	"errors"
	"fmt"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// Root's readers (ls, explain, calendar, metrics, history, show) load the
// zone of every task in the ledger. A zone registered as a file's path (a
// shared ledger takes what any of its users writes; an older catchup
// registered paths) was read with root's rights: what the file is, a copy
// of which zone, or whether it exists behind a directory of root's, showed
// in the slots and zone root's readers print for another user's task. So
// a task's zone file is read with the rights of the task's user
// (zoneReaderOf), on a thread of that user's filesystem ids
// (onThreadAs): every open, read and symlink on the way as that user's
// own process meets it, with nothing checked first and opened after (a
// symlink swapped between the two). A task whose user root cannot tell
// (its line gone, its crontab refused or unreadable) has its file read as
// nobody: only what every user may read.

// nobodyUID is the overflow uid, which owns nothing: a reader with its
// rights reads only what everyone may.
const nobodyUID = 65534

// zoneReader is whose rights a root reader reads a task's zone file with.
type zoneReader struct {
	cred *syscall.Credential
	who  string // as a message names it: "alice", "uid 1001", "nobody (its line is gone or refused)"
}

// zoneFilePath reports whether zone tz is spelled as a file's path.
func zoneFilePath(tz string) bool { return filepath.IsAbs(strings.TrimPrefix(tz, ":")) }

// zoneReaderOf is whose rights task t's zone file is read with by this
// reader: nil when with this process's own (it is not root, the zone is no
// path, or the task is root's own: root's crontab line, root's `catchup
// run --cron` or daemon); the line's user for another user's crontab line;
// the registrant for another user's `catchup run --cron` or daemon line;
// nobody when the task's user is not known.
func (c *crontabs) zoneReaderOf(t store.Task) *zoneReader {
	if c.m.UID != 0 || !zoneFilePath(t.TZ) {
		return nil
	}
	if uid, _, ok := registrant(t.Source); ok {
		uid, _, _ = strings.Cut(uid, " ")
		return registrantReader(uid)
	}
	if !strings.HasPrefix(t.Source, "crontab:") {
		return nobodyReader("its registration names no user")
	}
	se, gone := c.findLine(t)
	if gone != nil {
		return recordedLineReader(t)
	}
	sr := &shellReplay{}
	if c.m.asUser == nil {
		c.m.asUser = newAccessMemo() // once per user and path for this reader
	}
	if sr.resolveUser(c.m, se.Entry.User, se.user, se.spool) != nil {
		return nobodyReader("its line's user is unknown")
	}
	if sr.as == nil {
		return nil // root's own line
	}
	cred, err := sr.credential()
	if err != nil {
		return nobodyReader(err.Error())
	}
	return &zoneReader{cred: cred, who: sr.user}
}

// recordedLineReader reads the zone file of crontab line task t, whose
// line root cannot find (gone, refused, unreadable), as the user its
// registration recorded (lineRegistration), as a registrant's: the line's
// user while its uid still has the recorded name; nobody when it has
// another (a uid reused after userdel), or the registration records no
// user (an older catchup's).
func recordedLineReader(t store.Task) *zoneReader {
	uid, name, ok := lineRegistrant(t.Source)
	if !ok {
		return nobodyReader("its crontab line is gone, refused or unreadable")
	}
	if name != "" {
		if u, err := user.LookupId(uid); err != nil || u.Username != name {
			return nobodyReader(fmt.Sprintf("its crontab line is gone, refused or unreadable, and uid %s is no longer %s", uid, name))
		}
	}
	return registrantReader(uid)
}

// registrantReader reads as uid, a task's registrant: nil for root.
func registrantReader(uid string) *zoneReader {
	n, err := strconv.ParseUint(uid, 10, 32)
	switch {
	case err != nil:
		return nobodyReader("its registrant's uid is unreadable")
	case n == 0:
		return nil
	}
	if u, err := user.LookupId(uid); err == nil {
		sr := &shellReplay{as: u, user: u.Username}
		if cred, err := sr.credential(); err == nil {
			return &zoneReader{cred: cred, who: u.Username}
		}
	}
	return &zoneReader{cred: &syscall.Credential{Uid: uint32(n), Gid: nobodyUID, Groups: []uint32{}}, who: "uid " + uid}
}

// nobodyReader reads with nobody's rights, saying why.
func nobodyReader(why string) *zoneReader {
	return &zoneReader{cred: &syscall.Credential{Uid: nobodyUID, Gid: nobodyUID, Groups: []uint32{}}, who: "nobody (" + why + ")"}
}

// parse is parseSchedule of expr in zone tz, every file of the zone read
// as r's user.
func (r *zoneReader) parse(expr, tz string) (s *schedule.Schedule, err error) {
	if terr := onThreadAs(r.cred, func() error { s, err = parseSchedule(expr, tz); return nil }); terr != nil {
		return nil, terr
	}
	return s, err
}

// location is schedule.LoadZone of tz, its file read as r's user.
func (r *zoneReader) location(tz string) (loc *time.Location, err error) {
	if terr := onThreadAs(r.cred, func() error { loc, err = schedule.LoadZone(tz); return nil }); terr != nil {
		return nil, terr
	}
	return loc, err
}

// readerSchedule is task t's schedule for a reader that does not replay it
// (notes, silence): its zone file read as its user (zoneReaderOf).
func (c *crontabs) readerSchedule(t store.Task) (*schedule.Schedule, error) {
	if r := c.zoneReaderOf(t); r != nil {
		return r.parse(t.Schedule, t.TZ)
	}
	return parseSchedule(t.Schedule, t.TZ)
}

// readerZone is zoneOf(t, nil) for a reader: its zone file read as its
// user (zoneReaderOf); UTC when that user cannot read it.
func (c *crontabs) readerZone(t store.Task) *time.Location {
	if r := c.zoneReaderOf(t); r != nil {
		if loc, err := r.location(t.TZ); err == nil {
			return loc
		}
		return time.UTC
	}
	return zoneOf(t, nil)
}

// refusal is what a reader says of a task whose zone file r's user cannot
// read.
func (r *zoneReader) refusal() string {
	if strings.HasPrefix(r.who, "nobody (") {
		return "root's readers read it only with the rights every user has"
	}
	return "every fire of its line exits 125"
}

// scanZoneRefusal is why a root scan leaves task t alone: its zone is a
// file's path that its user cannot read, where that user is a registrant
// (another user's `catchup run --cron` or daemon line) or unknown (its
// crontab line gone, refused or unreadable; a found line of another user
// is refused by its replay's own check, checkZonePaths). Its slots are then
// neither counted, expired nor retired in a zone read with root's rights
// (on a shared ledger the user reads those records). "" otherwise.
func (c *crontabs) scanZoneRefusal(t store.Task) string {
	if c.m.UID != 0 || t.Schedule == "" || !zoneFilePath(t.TZ) || !t.RetiredAt.IsZero() {
		return ""
	}
	r := c.zoneReaderOf(t)
	if r == nil || (strings.HasPrefix(t.Source, "crontab:") && !strings.HasPrefix(r.who, "nobody (")) {
		return ""
	}
	_, err := c.taskSchedule(t)
	var refused zoneRefusedAs
	if !errors.As(err, &refused) {
		return ""
	}
	return fmt.Sprintf("task %s: %v; not scanned: a root scan reads a zone file only with its task's user's rights "+
		"(if the task is gone, catchup forget %s)", t.Name, err, t.Name)
}

// storedSchedule is task t's registered schedule for every command that
// computes or records its slots (scan, prune, pause and resume, forget, a
// retirement, backfill, reset-clock, a reap, a note's slot, an owed
// alert): as parseSchedule, but root reads a zone registered as a file's
// path as the task's user (taskSchedule), never with root's rights: one
// that user cannot read is an unknown zone (zoneRefusedAs), and no slot of
// it is computed or recorded. c is the command's crontabs (each read once);
// nil reads them anew. A command not run by root, and a zone that is no
// path, parse at once: a fire's zone is its own user's.
func storedSchedule(m Machine, c *crontabs, t store.Task) (*schedule.Schedule, error) {
	if m.UID != 0 || t.Schedule == "" || !zoneFilePath(t.TZ) {
		return parseSchedule(t.Schedule, t.TZ)
	}
	if c == nil {
		c = newCrontabs(m)
	}
	return c.taskSchedule(t)
}

// otherUsersZoneFile reports whether task t's zone is a file's path that
// root would read for another user (zoneReaderOf): a root daemon does not
// take such a zone as its line's (the fleet's zone, fleetZoneOf's), which
// it would read with root's rights at every fire, and so would every
// reader of root's own task after it.
func otherUsersZoneFile(m Machine, t store.Task) bool {
	return m.UID == 0 && zoneFilePath(t.TZ) && newCrontabs(m).zoneReaderOf(t) != nil
}
