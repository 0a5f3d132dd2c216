package catchup

import (
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
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
	if sr.as == nil {
		return nil
	}
	for _, z := range []struct{ what, name string }{{"--tz", e.Zone}, {"CRON_TZ", e.TZ}} {
		path := strings.TrimPrefix(z.name, ":")
		if !filepath.IsAbs(path) {
			continue // a name of the zone database, or a POSIX TZ string: no file of the user's choosing
		}
		cred, err := sr.credential()
		if err == nil {
			err = m.asUser.access(path, cred, unix.R_OK)
		}
		if err == nil {
			continue
		}
		why := fmt.Sprintf(" (a zone file's path, as %s: %v)", sr.user, err)
		shown := redact.Value(z.name)
		if shown != z.name || len(shown) > 128 {
			why = "" // it quotes a part of the name, which holds a secret's shape, or is cut
		}
		return lineRefusal(fmt.Sprintf("%s: unknown time zone %s%s: name a zone from tzdata like Europe/Berlin, "+
			"or a POSIX TZ string like EST5EDT,M3.2.0,M11.1.0; every fire of the line exits 125, and it is not registered",
			z.what, taskname.QuotedUpTo(shown, 128), why))
	}
	return nil
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
