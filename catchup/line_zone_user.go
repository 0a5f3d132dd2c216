package catchup

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/store"
)

// A line of another user's crontab that a root scan replays (on a shared
// ledger) may name its zone as a file's path (--tz, CRON_TZ). Root's scan
// reads that zone to register the line and read its slots; with root's
// rights it read files the user cannot, behind directories of root's: its
// warnings told whether such a file exists and what it is, and it
// registered a line whose file there is a zone (its zone in the ledger
// the user reads, its slots by that file), where the user's own fire
// cannot read it and exits 125. So the path is first looked at as that
// user (checkZonePaths): a file that user cannot reach and read refuses
// the line as the user's fire refuses it, saying only what that user
// would be told (accessAs).

// checkZonePaths refuses line e of another user's (sr.as) whose --tz or
// CRON_TZ is the path of a file that user cannot open for reading.
func (sr *shellReplay) checkZonePaths(m Machine, e crontab.Entry) error {
	for _, z := range []struct{ what, name string }{{"--tz", e.Zone}, {"CRON_TZ", e.TZ}} {
		if why, refused := sr.zonePathAs(m, z.name); refused {
			return lineRefusal(fmt.Sprintf("%s: unknown time zone %s%s: name a zone from tzdata like Europe/Berlin, "+
				"or a POSIX TZ string like EST5EDT,M3.2.0,M11.1.0; every fire of the line exits 125, and it is not registered",
				z.what, taskname.QuotedUpTo(redact.Value(z.name), 128), why))
		}
	}
	return nil
}

// zonePathAs reports whether zone name is the path of a file that the
// user of another user's line (sr.as) cannot open for reading, and why,
// as that user would be told (" (a zone file's path, as alice:
// permission denied)"; "" when it would quote a part of the name that
// holds a secret's shape, or a name cut).
func (sr *shellReplay) zonePathAs(m Machine, name string) (why string, refused bool) {
	if sr.as == nil {
		return "", false
	}
	path := strings.TrimPrefix(name, ":")
	if !filepath.IsAbs(path) {
		return "", false // a name of the zone database, or a POSIX TZ string: no file of the user's choosing
	}
	cred, err := sr.credential()
	if err == nil {
		err = m.asUser.access(path, cred, unix.R_OK)
	}
	if err == nil {
		return "", false
	}
	if shown := redact.Value(name); shown != name || len(shown) > 128 {
		return "", true
	}
	return fmt.Sprintf(" (a zone file's path, as %s: %v)", sr.user, err), true
}

// taskSchedule is task t's registered schedule, for a reader (ls,
// explain, calendar, metrics): as parseSchedule, but for root a zone
// registered as a file's path is read with the rights of the task's user
// (zoneReaderOf): the user of another user's crontab line (its line
// re-read through c), the registrant of another user's `catchup run
// --cron` or daemon line, else nobody. One that user cannot read is an
// unknown zone, as their fires find it (exit 125): root read it with its
// rights, and showed that user's slots in it, and which zone it is.
func (c *crontabs) taskSchedule(t store.Task) (*schedule.Schedule, error) {
	var r *zoneReader
	if t.Schedule != "" {
		r = c.zoneReaderOf(t)
	}
	if r == nil {
		return parseSchedule(t.Schedule, t.TZ)
	}
	if c.m.asUser == nil {
		c.m.asUser = newAccessMemo() // once per user and path for this reader
	}
	if err := c.m.asUser.access(strings.TrimPrefix(t.TZ, ":"), r.cred, unix.R_OK); err != nil {
		why := fmt.Sprintf(" (a zone file's path, as %s: %v)", r.who, err)
		if shown := redact.Value(t.TZ); shown != t.TZ || len(shown) > 128 {
			why = ""
		}
		return nil, zoneRefusedAs(fmt.Sprintf("unknown time zone %s%s: %s",
			taskname.QuotedUpTo(redact.Value(t.TZ), 128), why, r.refusal()))
	}
	s, err := r.parse(t.Schedule, t.TZ) // read as the user: a symlink swapped since the look above reads as theirs
	if err != nil {
		return nil, zoneRefusedAs(err.Error())
	}
	return s, nil
}

// zoneRefusedAs is taskSchedule's refusal of a task's schedule read as its
// user: its zone is not loaded with root's rights to be shown.
type zoneRefusedAs string

func (e zoneRefusedAs) Error() string { return string(e) }

// zoneShown is the zone a reader shows task t's slots in, given what
// taskSchedule returned: its schedule's; UTC for a schedule refused as
// its user (never its zone loaded with root's rights); else its zone,
// read as its user (readerZone).
func (c *crontabs) zoneShown(t store.Task, sched *schedule.Schedule, err error) *time.Location {
	var refused zoneRefusedAs
	switch {
	case sched != nil:
		return sched.Location()
	case errors.As(err, &refused):
		return time.UTC
	}
	return c.readerZone(t)
}

// zonePathRefused reports whether line se is another user's whose zone
// path that user cannot read (checkZonePaths), for a reader of the line
// that does not replay it.
func zonePathRefused(m Machine, se sourcedEntry) bool {
	sr := &shellReplay{}
	if sr.resolveUser(m, se.Entry.User, se.user, se.spool) != nil {
		return m.UID == 0 // a user root cannot run it as (cron neither); else not root's rights
	}
	return sr.checkZonePaths(m, se.Entry) != nil
}
