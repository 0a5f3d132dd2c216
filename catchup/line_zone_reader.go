package catchup

import (
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/schedule"
)

// A root scan or fire reads another user's crontab line in its zones: its
// --tz and CRON_TZ, else the zone its task is registered in. Where one is
// a file's path, checkZonePaths looked at it as that user first, and root
// then read it with its own rights: a file swapped in between (a symlink
// re-pointed behind a directory of root's) was registered as the zone of
// which it is a copy, and a registered zone the line does not name was
// never looked at as the user at all. So every read of such a line's zones
// goes through its user's zoneReader (readAs): on a thread of that user's
// filesystem ids, opening only what that user's own fire can open.

// zoneReader is whose rights line sr's zone files are read with: nil for
// the scanning user's own line; its user's for another user's; nobody's
// when that user's groups cannot be read.
func (sr *shellReplay) zoneReader() *zoneReader {
	if sr == nil || sr.as == nil {
		return nil
	}
	cred, err := sr.credential()
	if err != nil {
		return nobodyReader(err.Error())
	}
	return &zoneReader{cred: cred, who: sr.user}
}

// lineZoneReader is line se's zoneReader, for reading its zones (--tz,
// CRON_TZ) and those of others: nobody's when whom it runs as cannot be
// told (cron runs it as no one; root reads what everyone may). nil, with
// no user looked up, when this process is not root or no zone is a
// file's path: read with this process's rights.
func lineZoneReader(m Machine, se sourcedEntry, others ...string) *zoneReader {
	if m.UID != 0 || !slices.ContainsFunc(append(others, se.Zone, se.TZ), zoneFilePath) {
		return nil
	}
	sr := &shellReplay{}
	if err := sr.resolveUser(m, se.Entry.User, se.user, se.spool); err != nil {
		return nobodyReader("its line's user is unknown")
	}
	return sr.zoneReader()
}

// readAs runs fn, which reads zones (loads them, spells them), with r's
// rights: on a thread of r's filesystem ids when r is set and one of zones
// is a file's path; at once otherwise (this process's own line, or only
// names of the zone database and POSIX TZ strings, which read no file of
// the user's choosing). An error is fn's, or the thread's that could not
// take r's ids (fn then never ran).
func (r *zoneReader) readAs(fn func() error, zones ...string) error {
	if r == nil || !slices.ContainsFunc(zones, zoneFilePath) {
		return fn()
	}
	return onThreadAs(r.cred, fn)
}

// parseLine is parseSchedule of expr in zone tz with r's rights (readAs).
func (r *zoneReader) parseLine(expr, tz string) (s *schedule.Schedule, err error) {
	if terr := r.readAs(func() error { s, err = parseSchedule(expr, tz); return nil }, tz); terr != nil {
		return nil, terr
	}
	return s, err
}

// lineZoneAs is lineZoneOf of line e with r's rights (readAs), with the
// spellings of its --tz and CRON_TZ.
func (r *zoneReader) lineZoneAs(m Machine, e crontab.Entry) (zone string, fromHost bool, lineZone, cronTZ string, err error) {
	err = r.readAs(func() error {
		zone, fromHost = lineZoneOf(m, e)
		lineZone, cronTZ = schedule.ZoneSpelling(e.Zone), schedule.ZoneSpelling(e.TZ)
		return nil
	}, e.Zone, e.TZ)
	return zone, fromHost, lineZone, cronTZ, err
}

// checkLineAs is checkLine of line e in zone with r's rights (readAs): its
// --tz, CRON_TZ and zone read as its user's fire reads them. A thread
// that could not take r's ids refuses the line.
func (r *zoneReader) checkLineAs(e crontab.Entry, zone string) (maxAge time.Duration, err error) {
	if terr := r.readAs(func() error { maxAge, err = checkLine(e, zone); return nil }, e.Zone, e.TZ, zone); terr != nil {
		return 0, lineRefusal(fmt.Sprintf("read its zone as %s: %v", r.who, terr))
	}
	return maxAge, err
}

// checkFiredAs is checkLine of line e in the zone cron fires it in
// (firedZone: its --tz, else its CRON_TZ, else def, the zone its task is
// registered in), with r's rights (readAs).
func (r *zoneReader) checkFiredAs(e crontab.Entry, def string) (maxAge time.Duration, err error) {
	if terr := r.readAs(func() error { maxAge, err = checkLine(e, firedZone(e, def)); return nil }, e.Zone, e.TZ, def); terr != nil {
		return 0, lineRefusal(fmt.Sprintf("read its zone as %s: %v", r.who, terr))
	}
	return maxAge, err
}
