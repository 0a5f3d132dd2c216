package schedule

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adhocore/gronx"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
)

// macro is the expression of an @ shorthand catchup accepts (all
// time-based). A switch, not a map: a package-level map is built at every
// process's start (docs/performance.md).
func macro(name string) (expr string, ok bool) {
	switch name {
	case "@hourly":
		return "0 * * * *", true
	case "@daily", "@midnight":
		return "0 0 * * *", true
	case "@weekly":
		return "0 0 * * 0", true
	case "@monthly":
		return "0 0 1 * *", true
	case "@yearly", "@annually":
		return "0 0 1 1 *", true
	}
	return "", false
}

var fieldNames = [5]string{"minute", "hour", "day-of-month", "month", "day-of-week"}

// fieldTakes is what each field takes, the fix its error names;
// cronFieldTakes is what cron takes in a crontab line's (ParseCrontab).
var (
	fieldTakes     = [5]string{"0-59", "0-23", "1-31 (or L, W)", "1-12 or jan-dec", "0-7 or sun-sat (0 and 7 are Sunday; or L, #)"}
	cronFieldTakes = [5]string{"0-59", "0-23", "1-31", "1-12 or jan-dec", "0-7 or sun-sat (0 and 7 are Sunday)"}
)

const wantForms = "5 fields or @hourly/@daily/@weekly/@monthly/@yearly"

// Parse parses a 5-field cron expression (anything gronx accepts in 5
// fields: lists, ranges, steps, names, L, W, #, ?) or one of @hourly, @daily,
// @midnight, @weekly, @monthly, @yearly, @annually, to be evaluated in loc.
// Every error message starts with "cron expression" and says what is wrong.
func Parse(expr string, loc *time.Location) (*Schedule, error) {
	return parse(expr, loc, &fieldTakes)
}

// ParseCrontab parses a crontab line's time fields, which cron reads: as
// Parse, refusing what cron does not take (CronSyntax), and naming what
// cron takes when a field is invalid.
func ParseCrontab(expr string, loc *time.Location) (*Schedule, error) {
	s, err := parse(expr, loc, &cronFieldTakes)
	if err != nil {
		return nil, err
	}
	if err := CronSyntax(expr); err != nil {
		return nil, err
	}
	return s, nil
}

func parse(expr string, loc *time.Location, takes *[5]string) (*Schedule, error) {
	trimmed := strings.TrimSpace(expr)
	if loc == nil {
		return nil, fmt.Errorf("cron expression %s has no time zone", quoted(trimmed))
	}
	if trimmed == "" {
		return nil, fmt.Errorf("cron expression is empty: want %s", wantForms)
	}
	body := trimmed
	if strings.HasPrefix(trimmed, "@") {
		e, ok := macro(strings.ToLower(trimmed))
		if !ok {
			return nil, fmt.Errorf("cron expression %s is not supported: catchup needs a time-based schedule (%s)", quoted(trimmed), wantForms)
		}
		body = e
	}
	fields := strings.Fields(body)
	if len(fields) != 5 {
		return nil, fmt.Errorf("cron expression %s has %d fields, want 5 (minute hour day-of-month month day-of-week)", quoted(trimmed), len(fields))
	}
	canon := strings.Join(fields, " ")
	segs, err := gronx.Segments(canon)
	if err != nil || len(segs) != 6 {
		return nil, fmt.Errorf("cron expression %s is invalid", quoted(trimmed))
	}

	segs[5] = sundayRanges(segs[5])
	s := &Schedule{expr: trimmed, loc: loc, segs: segs}
	// Validate every comma-separated part of every field against every value
	// the field can take: gronx's own IsValid only tries the current time,
	// and a list like "5,x" errors only when 5 does not match.
	for i := 1; i <= 5; i++ {
		for _, part := range strings.Split(segs[i], ",") {
			if !partValidMemo(part, i) || (i == 5 && sevenStartsRange(part)) {
				return nil, fmt.Errorf("cron expression %s has an invalid %s field %s: %s takes %s, as a value, a list (1,5), a range from low to high (1-5) or a step (*/15)",
					quoted(trimmed), fieldNames[i-1], taskname.QuotedUpTo(shownField(trimmed, fields[i-1]), shownMax), fieldNames[i-1], takes[i-1])
			}
		}
	}
	if segs[0] != "0" || !gronx.IsValid(strings.Join(segs[1:], " ")) {
		return nil, fmt.Errorf("cron expression %s is invalid", quoted(trimmed))
	}

	s.minute = fieldBits(segs[1], 1)
	s.hour = uint32(fieldBits(segs[2], 2))
	s.month = uint16(fieldBits(segs[4], 4))
	s.domSpecial = strings.ContainsAny(segs[3], "LW#")
	s.dowSpecial = strings.ContainsAny(segs[5], "LW#")
	if !s.domSpecial {
		s.dom = uint32(fieldBits(segs[3], 3))
	}
	if !s.dowSpecial {
		s.dow = uint8(fieldBits(segs[5], 5))
	}
	// cronie's day rule (DOM_STAR/DOW_STAR in its entry.c): when either day
	// field starts with '*' (or gronx's '?'), both must match; only when
	// both are restricted does either one do.
	domSeg, dowSeg := segs[3], segs[5]
	switch {
	case dowSeg == "*" || dowSeg == "?":
		s.dayMode = dayDomOnly
	case wildcard(domSeg) || wildcard(dowSeg):
		s.dayMode = dayAnd
	default:
		s.dayMode = dayOr
	}
	s.fixed = !wildcard(segs[1]) && !wildcard(segs[2])
	if !s.everFires() {
		return nil, fmt.Errorf("cron expression %s never fires: no date matches its day-of-month, month and day-of-week fields", quoted(trimmed))
	}
	return s, nil
}

// wildcard reports whether a minute or hour field starts with '*' (or
// is gronx's '?', which means the same).
func wildcard(seg string) bool {
	return strings.HasPrefix(seg, "*") || strings.HasPrefix(seg, "?")
}

// partValid reports whether one list element of field pos checks
// without error for every value the field can take.
func partValid(part string, pos int) bool {
	c := &gronx.SegmentChecker{}
	try := func(t time.Time) bool {
		c.SetRef(t)
		_, err := c.CheckDue(part, pos)
		return err == nil
	}
	switch pos {
	case 1:
		for m := 0; m < 60; m++ {
			if !try(time.Date(2000, 1, 1, 0, m, 0, 0, time.UTC)) {
				return false
			}
		}
	case 2:
		for h := 0; h < 24; h++ {
			if !try(time.Date(2000, 1, 1, h, 0, 0, 0, time.UTC)) {
				return false
			}
		}
	case 3, 5:
		// Errors depend only on the part and on whether its plain
		// (non-L/W/#) reading matches the day or weekday number, so every
		// day of a 31-day month covers every case.
		for d := 1; d <= 31; d++ {
			if !try(time.Date(2000, 1, d, 0, 0, 0, 0, time.UTC)) {
				return false
			}
		}
	case 4:
		for mo := 1; mo <= 12; mo++ {
			if !try(time.Date(2000, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)) {
				return false
			}
		}
	}
	return true
}

// fieldMatches asks gronx whether field pos matches the wall time t (UTC).
func fieldMatches(seg string, pos int, t time.Time) bool {
	c := &gronx.SegmentChecker{}
	c.SetRef(t)
	due, err := c.CheckDue(seg, pos)
	return err == nil && due
}

// LoadZone resolves a zone name as catchup takes it, as glibc reads TZ
// (and so cronie CRON_TZ): a tz database name, in any spelling TZ takes
// (ZoneSpelling); else a POSIX TZ string ("EST5EDT,M3.2.0,M11.1.0"), whose
// location's String is the string as given; or "" or "Local" for the local
// zone. It is the one place a zone's name becomes a *time.Location.
func LoadZone(name string) (*time.Location, error) {
	zone := ZoneSpelling(name)
	if zone == "" || zone == "Local" {
		return time.Local, nil
	}
	if loc, err := time.LoadLocation(zone); err == nil {
		return loc, nil
	}
	loc, err := posixZone(zone)
	if err == nil {
		return loc, nil
	}
	why := ""
	if filepath.IsAbs(zone) { // meant as a zone file's path
		if _, ferr := ReadZoneFile(zone); ferr != nil {
			why = " (a zone file's path: " + ferr.Error() + ")"
		}
	} else if strings.ContainsAny(zone, "0123456789<,") { // meant as a POSIX TZ string
		why = " (as a POSIX TZ string: " + err.Error() + ")"
	}
	shown := redact.Value(name)
	if shown != name || len(shown) > shownMax {
		why = "" // it quotes a part of name, which holds a secret's shape (X11), or is cut (quoted)
	}
	if why == "" && !hasZoneDatabase(zoneDatabases) {
		why = " (this system has no zone database, " + zoneDatabases[0] + ": install tzdata, as apk add tzdata does in an Alpine image)"
	}
	return nil, fmt.Errorf("unknown time zone %s%s: name a zone from tzdata like Europe/Berlin, "+
		"or a POSIX TZ string like EST5EDT,M3.2.0,M11.1.0", taskname.QuotedUpTo(shown, shownMax), why)
}

// shownMax is how many characters of a refused expression or zone an
// error shows: a longer one is cut, with its length (taskname.QuotedUpTo).
const shownMax = 128

// quoted is a cron expression as an error shows it: masked
// (redact.Value), quoted, cut after shownMax characters.
func quoted(expr string) string { return taskname.QuotedUpTo(redact.Value(expr), shownMax) }

// shownField is a field of cron expression expr as an error quotes it:
// masked as redact.Value masks it, and whole (***) when it is a part of
// what the expression's masking hid (TOKEN="a of TOKEN="a b" * * *).
func shownField(expr, field string) string {
	f, shown := redact.Value(field), redact.Value(expr)
	if f != field || shown == expr || strings.Contains(shown, field) {
		return f
	}
	return redact.Mask
}

// zoneDatabases are where Go's time package looks for the zone database
// on Unix, after $ZONEINFO.
var zoneDatabases = []string{"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/", "/etc/zoneinfo/"}

// hasZoneDatabase reports whether $ZONEINFO or one of dirs exists: with
// none, every zone name is unknown (a container image without tzdata).
func hasZoneDatabase(dirs []string) bool {
	if z := os.Getenv("ZONEINFO"); z != "" {
		dirs = append([]string{z}, dirs...)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			return true
		}
	}
	return false
}
