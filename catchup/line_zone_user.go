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
// explain, calendar): as parseSchedule, but the registered zone of
// another user's crontab line (its line re-read through c) that names a
// file is first looked at as that user (zonePathAs). One that user cannot
// read is an unknown zone, as their line's fires find it (exit 125): root
// read it with its rights, and showed that user's slots in it, and which
// zone it is.
func (c *crontabs) taskSchedule(t store.Task) (*schedule.Schedule, error) {
	if c.m.UID == 0 && t.Schedule != "" && filepath.IsAbs(strings.TrimPrefix(t.TZ, ":")) && strings.HasPrefix(t.Source, "crontab:") {
		if se, gone := c.findLine(t); gone == nil {
			sr := &shellReplay{}
			if c.m.asUser == nil {
				c.m.asUser = newAccessMemo() // once per user and path for this reader
			}
			if sr.resolveUser(c.m, se.Entry.User, se.user, se.spool) == nil {
				if why, refused := sr.zonePathAs(c.m, t.TZ); refused {
					return nil, zoneRefusedAs(fmt.Sprintf("unknown time zone %s%s: every fire of its line exits 125",
						taskname.QuotedUpTo(redact.Value(t.TZ), 128), why))
				}
			}
		}
	}
	return parseSchedule(t.Schedule, t.TZ)
}

// zoneRefusedAs is taskSchedule's refusal of a zone file as the line's
// user.
type zoneRefusedAs string

func (e zoneRefusedAs) Error() string { return string(e) }

// zoneShownOf is zoneOf for a reader, given what taskSchedule returned: a
// zone refused as the line's user is not loaded with root's rights (UTC).
func zoneShownOf(t store.Task, sched *schedule.Schedule, err error) *time.Location {
	var refused zoneRefusedAs
	if errors.As(err, &refused) {
		return time.UTC
	}
	return zoneOf(t, sched)
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
