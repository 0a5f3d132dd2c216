package schedule

// What catchup takes from cronie beyond gronx's reading of the fields:
// day-of-week ranges that end on Sunday, the calendar cycle that bounds
// every search, and the test of a fire's wall-clock minute.

import (
	"strconv"
	"strings"
	"time"

	"github.com/adhocore/gronx"
)

// sundayRanges reads a day-of-week range that ends on Sunday as ending
// on 7, as cronie does: "fri-sun" and "5-0" are Friday to Sunday, "5-0/2"
// Friday and Sunday. gronx has already turned the names into numbers; any
// other descending range stays as it is and is refused, as cronie does.
func sundayRanges(seg string) string {
	parts := strings.Split(seg, ",")
	for i, p := range parts {
		rng, step, hasStep := strings.Cut(p, "/")
		from, to, ok := strings.Cut(rng, "-")
		if n, err := strconv.Atoi(from); !ok || err != nil || n <= 0 || strings.Trim(to, "0") != "" || to == "" {
			continue
		}
		parts[i] = from + "-7"
		if hasStep {
			parts[i] += "/" + step
		}
	}
	return strings.Join(parts, ",")
}

// sevenStartsRange reports whether a day-of-week list element is a range
// from 7 to a weekday ("7-1", "7-3/2"): descending, as "6-1" is, and refused
// as cronie refuses it. gronx would read it as 0-1 (Sunday to Monday).
func sevenStartsRange(part string) bool {
	rng, _, _ := strings.Cut(part, "/")
	from, to, ok := strings.Cut(rng, "-")
	if !ok {
		return false
	}
	f, err1 := strconv.Atoi(from)
	n, err2 := strconv.Atoi(to)
	return err1 == nil && err2 == nil && f == 7 && n >= 1 && n <= 6
}

// cycleYears is the Gregorian calendar's period: dates and weekdays
// repeat every 400 years, so a schedule that matches no wall time in 400
// years never fires, and one that does fires at least once in any 400.
const cycleYears = 400

// everFires reports whether some wall time in one whole calendar cycle
// matches the expression.
func (s *Schedule) everFires() bool {
	var c cursor
	from := daysFromCivil(2000, 1, 1) * 86400
	_, ok := s.nextWall(&c, from, daysFromCivil(2000+cycleYears, 1, 1)*86400-1)
	return ok
}

// Matches reports whether the wall clock at t, in the schedule's zone and
// to the minute, matches the expression: whether t looks like a time cron
// fires the line at.
func (s *Schedule) Matches(t time.Time) bool {
	w := t.In(s.loc)
	wall := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), 0, 0, time.UTC).Unix()
	var c cursor
	got, ok := s.nextWall(&c, wall, wall)
	return ok && got == wall
}

// SevenRangeRespelled is expr with each day-of-week range from 7 to a
// weekday ("7-1", which Parse refuses, as cronie does) spelled from 0
// ("0-1"): the days an older catchup, which read it with gronx, gave it.
// ok is false when expr has no such range (or is no 5-field expression).
func SevenRangeRespelled(expr string) (respelled string, ok bool) {
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return "", false
	}
	segs, err := gronx.Segments(strings.Join(fields, " "))
	if err != nil || len(segs) != 6 {
		return "", false
	}
	parts := strings.Split(segs[5], ",")
	for i, p := range parts {
		if sevenStartsRange(p) {
			parts[i], ok = "0"+p[1:], true
		}
	}
	if !ok {
		return "", false
	}
	return strings.Join(append(fields[:4:4], strings.Join(parts, ",")), " "), true
}
