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

// lineZones is what registerEntry reads of a line's zones: the zone cron
// fires it in (lineZoneOf), the spellings of its --tz and CRON_TZ, and
// checkLine's --max-age.
type lineZones struct {
	zone, lineZone, cronTZ string
	fromHost               bool
	maxAge                 time.Duration
}

// spell is lineZoneOf of line e, with the spellings of its --tz and CRON_TZ.
func (lz *lineZones) spell(m Machine, e crontab.Entry) {
	lz.zone, lz.fromHost = lineZoneOf(m, e)
	lz.lineZone, lz.cronTZ = schedule.ZoneSpelling(e.Zone), schedule.ZoneSpelling(e.TZ)
}

// lineZoneAs is lineZoneOf of line e with r's rights (readAs).
func (r *zoneReader) lineZoneAs(m Machine, e crontab.Entry) (zone string, err error) {
	var lz lineZones
	err = r.readAs(func() error { lz.spell(m, e); return nil }, e.Zone, e.TZ)
	return lz.zone, err
}

// readLine is line e's zones (spell), then checkLine in the zone cron
// fires it in, with r's rights: on one thread of its user's (readAs), its
// --tz, CRON_TZ and zone read as its user's fire reads them. A thread that
// could not take r's ids refuses the line.
func (r *zoneReader) readLine(m Machine, e crontab.Entry) (lz lineZones, err error) {
	terr := r.readAs(func() error {
		lz.spell(m, e)
		lz.maxAge, err = checkLine(e, lz.zone)
		return nil
	}, e.Zone, e.TZ)
	if terr != nil {
		return lz, lineRefusal(fmt.Sprintf("read its zone as %s: %v", r.who, terr))
	}
	return lz, err
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

// lineKey is what readLine (or checkFiredAs: fired, in def) reads of a
// line, as that line's user: its values checkLine reads, and the user.
// Lines alike in them (a crontab of many lines naming one zone file, but
// for their tasks and commands) are read once per scan (accessMemo.line):
// each read takes a thread of its own.
type lineKey struct {
	uid, gid                                     uint32
	groups                                       string
	zone, tz, expr, cron, maxAge, replay, onBusy string
	fired                                        bool
	def                                          string
}

// lineRead is readLine's answer (checkFiredAs's: its maxAge and err).
type lineRead struct {
	lz  lineZones
	err error
}

// line is read's answer for line e as r's user, once per user, line
// values, fired and def for a scan (a nil memo, or this process's own
// line: read every time).
func (a *accessMemo) line(r *zoneReader, e crontab.Entry, fired bool, def string, read func() lineRead) lineRead {
	if a == nil || r == nil {
		return read()
	}
	key := lineKey{uid: r.cred.Uid, gid: r.cred.Gid, groups: fmt.Sprint(r.cred.Groups), zone: e.Zone, tz: e.TZ, expr: e.Expr,
		cron: e.Cron, maxAge: e.MaxAge, replay: e.Replay, onBusy: e.OnBusy, fired: fired, def: def}
	a.mu.Lock()
	got, ok := a.lines[key]
	a.mu.Unlock()
	if !ok {
		got = read()
		a.mu.Lock()
		a.lines[key] = got
		a.mu.Unlock()
	}
	return got
}

// readLine is r.readLine, once per scan for lines alike (line).
func (a *accessMemo) readLine(r *zoneReader, m Machine, e crontab.Entry) (lineZones, error) {
	got := a.line(r, e, false, "", func() lineRead { lz, err := r.readLine(m, e); return lineRead{lz, err} })
	return got.lz, got.err
}

// checkFiredAs is r.checkFiredAs, once per scan for lines alike (line).
func (a *accessMemo) checkFiredAs(r *zoneReader, e crontab.Entry, def string) (time.Duration, error) {
	got := a.line(r, e, true, def, func() lineRead {
		maxAge, err := r.checkFiredAs(e, def)
		return lineRead{lineZones{maxAge: maxAge}, err}
	})
	return got.lz.maxAge, got.err
}
