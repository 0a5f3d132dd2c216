package catchup

// Slot enumeration for cron schedules.
//
// gronx parses and matches expressions, but its tick search (NextTickAfter,
// PrevTickBefore) steps through zoned time and gets DST wrong, so this file
// owns the search and only uses gronx as a field matcher on zone-less wall
// times (a wall time is held as a UTC time, or as seconds since 1970-01-01
// 00:00 "wall UTC"), where it is reliable.
//
// How a slot list is built:
//
//   - Real time is cut into zone periods (time.Time.ZoneBounds): within one
//     period the UTC offset o is constant, so instants [start, end) show the
//     wall times [start+o, end+o) exactly once each, in order.
//   - For each period overlapping the requested range, the matching wall
//     times in its wall range are enumerated with bitsets (minute, hour,
//     month) and a per-month day mask (day-of-month/day-of-week, computed
//     exactly as gronx's SegmentsDue combines them), jumping over
//     non-matching months, days and hours. Each gives the slot wall-o, so
//     slots come out strictly increasing without any sorting.
//   - Fall back (a wall time shown by an earlier period too): a fixed-time
//     job (minute and hour fields both not starting with '*' or '?') skips
//     the second showing; a job with a wildcard minute or hour keeps it.
//   - Spring forward (wall times shown by no period): at the start of a
//     period whose offset grew, a fixed-time job gets one slot at the
//     transition instant if any skipped wall time matches; wildcard jobs get
//     nothing there.
//
// Day-of-month and day-of-week: gronx (SegmentsDue) ANDs them when the
// day-of-week field is "*"/"?", when it starts with "*/", or when the
// day-of-month field starts with "*" or is "?"; otherwise (both restricted)
// a day matches if EITHER matches, which is Vixie cron/cronie's rule. The
// day mask below reproduces that decision; L, W and # are evaluated by gronx
// itself on the wall date.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/adhocore/gronx"
)

// Schedule is a task's cron expression evaluated in its time zone.
//
// A slot is an instant at which the task's wall clock, in its zone, shows a
// time the expression matches, at second 0, with cronie's DST rules: when a
// wall time occurs twice, a job whose minute and hour fields are both fixed
// runs at the first occurrence only while a job with '*' (or '?') leading its
// minute or hour field runs at both; when wall times are skipped, a fixed job
// whose time was skipped runs once at the first instant after the gap while a
// wildcard job simply has no slots in the gap. Day fields are matched on the
// (possibly nonexistent) wall date.
//
// A Schedule is immutable and safe for concurrent use.
type Schedule struct {
	expr string
	loc  *time.Location
	segs []string // gronx-normalized: second (always "0"), minute, hour, dom, month, dow

	minute uint64 // bit m: minute m matches
	hour   uint32 // bit h
	month  uint16 // bit m, 1..12
	dom    uint32 // bit d, 1..31 (only when !domSpecial)
	dow    uint8  // bit w, 0..6 (only when !dowSpecial)

	domSpecial bool // dom uses L/W: ask gronx per date
	dowSpecial bool // dow uses L/#: ask gronx per date
	dayMode    uint8
	fixed      bool // minute and hour both fixed: one slot per matching wall time
}

const (
	schedDayDomOnly = iota // dow is * or ?: day matches iff dom matches
	schedDayAnd            // both must match
	schedDayOr             // either may match (both restricted)
)

// errScheduleInvalid is matched (errors.Is) by every ParseSchedule error.
var errScheduleInvalid = errors.New("invalid cron schedule")

type schedParseError struct{ msg string }

func (e *schedParseError) Error() string        { return e.msg }
func (e *schedParseError) Is(target error) bool { return target == errScheduleInvalid }

func schedErrorf(format string, args ...any) error {
	return &schedParseError{msg: fmt.Sprintf(format, args...)}
}

// schedTags are the @ shorthands catchup accepts (all time-based).
var schedTags = map[string]string{
	"@hourly":   "0 * * * *",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@weekly":   "0 0 * * 0",
	"@monthly":  "0 0 1 * *",
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
}

var schedFieldNames = [5]string{"minute", "hour", "day-of-month", "month", "day-of-week"}

const schedWant = "5 fields or @hourly/@daily/@weekly/@monthly/@yearly"

// ParseSchedule parses a 5-field cron expression (anything gronx accepts in 5
// fields: lists, ranges, steps, names, L, W, #, ?) or one of @hourly, @daily,
// @midnight, @weekly, @monthly, @yearly, @annually, to be evaluated in loc.
// Every error is errors.Is(err, errScheduleInvalid); its message starts with
// "cron expression" and says what is wrong.
func ParseSchedule(expr string, loc *time.Location) (*Schedule, error) {
	trimmed := strings.TrimSpace(expr)
	if loc == nil {
		return nil, schedErrorf("cron expression %q has no time zone", trimmed)
	}
	if trimmed == "" {
		return nil, schedErrorf("cron expression is empty: want %s", schedWant)
	}
	body := trimmed
	if strings.HasPrefix(trimmed, "@") {
		e, ok := schedTags[strings.ToLower(trimmed)]
		if !ok {
			return nil, schedErrorf("cron expression %q is not supported: catchup needs a time-based schedule (%s)", trimmed, schedWant)
		}
		body = e
	}
	fields := strings.Fields(body)
	if len(fields) != 5 {
		return nil, schedErrorf("cron expression %q has %d fields, want 5 (minute hour day-of-month month day-of-week)", trimmed, len(fields))
	}
	canon := strings.Join(fields, " ")
	segs, err := gronx.Segments(canon)
	if err != nil || len(segs) != 6 {
		return nil, schedErrorf("cron expression %q is invalid", trimmed)
	}

	s := &Schedule{expr: trimmed, loc: loc, segs: segs}
	// Validate every comma-separated part of every field against every value
	// the field can take: gronx's own IsValid only tries the current time,
	// and a list like "5,x" errors only when 5 does not match.
	for i := 1; i <= 5; i++ {
		for _, part := range strings.Split(segs[i], ",") {
			if !schedPartValid(part, i) {
				return nil, schedErrorf("cron expression %q has an invalid %s field %q", trimmed, schedFieldNames[i-1], fields[i-1])
			}
		}
	}
	if segs[0] != "0" || !gronx.IsValid(canon) {
		return nil, schedErrorf("cron expression %q is invalid", trimmed)
	}

	for m := 0; m < 60; m++ {
		if schedCheck(segs[1], 1, time.Date(2000, 1, 1, 0, m, 0, 0, time.UTC)) {
			s.minute |= 1 << m
		}
	}
	for h := 0; h < 24; h++ {
		if schedCheck(segs[2], 2, time.Date(2000, 1, 1, h, 0, 0, 0, time.UTC)) {
			s.hour |= 1 << h
		}
	}
	for mo := 1; mo <= 12; mo++ {
		if schedCheck(segs[4], 4, time.Date(2000, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)) {
			s.month |= 1 << mo
		}
	}
	s.domSpecial = strings.ContainsAny(segs[3], "LW#")
	s.dowSpecial = strings.ContainsAny(segs[5], "LW#")
	if !s.domSpecial {
		for d := 1; d <= 31; d++ { // January 2000 has 31 days
			if schedCheck(segs[3], 3, time.Date(2000, 1, d, 0, 0, 0, 0, time.UTC)) {
				s.dom |= 1 << d
			}
		}
	}
	if !s.dowSpecial {
		for w := 0; w < 7; w++ { // 2000-01-02 was a Sunday
			if schedCheck(segs[5], 5, time.Date(2000, 1, 2+w, 0, 0, 0, 0, time.UTC)) {
				s.dow |= 1 << w
			}
		}
	}
	// The dom/dow decision of gronx's SegmentsDue, reproduced.
	domSeg, dowSeg := segs[3], segs[5]
	switch {
	case dowSeg == "*" || dowSeg == "?":
		s.dayMode = schedDayDomOnly
	case strings.HasPrefix(dowSeg, "*/") || strings.HasPrefix(domSeg, "*") || domSeg == "?":
		s.dayMode = schedDayAnd
	default:
		s.dayMode = schedDayOr
	}
	s.fixed = !schedWildcard(segs[1]) && !schedWildcard(segs[2])
	return s, nil
}

// schedWildcard reports whether a minute or hour field starts with '*' (or
// is gronx's '?', which means the same).
func schedWildcard(seg string) bool {
	return strings.HasPrefix(seg, "*") || strings.HasPrefix(seg, "?")
}

// schedPartValid reports whether one list element of field pos checks
// without error for every value the field can take.
func schedPartValid(part string, pos int) bool {
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

// schedCheck asks gronx whether field pos matches the wall time t (UTC).
func schedCheck(seg string, pos int, t time.Time) bool {
	c := &gronx.SegmentChecker{}
	c.SetRef(t)
	due, err := c.CheckDue(seg, pos)
	return err == nil && due
}

// Expr returns the expression as given (trimmed).
func (s *Schedule) Expr() string { return s.expr }

// Location returns the zone the expression is evaluated in.
func (s *Schedule) Location() *time.Location { return s.loc }

// Prev returns the latest slot at or before t. ok is false if there is none
// in the 5 years before t.
func (s *Schedule) Prev(t time.Time) (slot time.Time, ok bool) {
	hi := t.Unix() // slots are whole seconds: slot <= t iff slot <= floor(t)
	lo := t.AddDate(-5, 0, 0).Unix() - 1
	if t.Nanosecond() != 0 {
		lo++ // [t-5y, t] holds whole seconds from ceil(t-5y)
	}
	// Search backwards in windows growing 8-fold (2m, 16m, ~2h, ... ~4y), so
	// that dense schedules look at a few slots and sparse ones at a few
	// windows.
	width := int64(120)
	for top := hi; top > lo; {
		bottom := max(top-width, lo)
		var last int64
		found := false
		s.each(bottom, top, func(u int64) bool {
			last, found = u, true
			return true
		})
		if found {
			return time.Unix(last, 0).UTC(), true
		}
		top = bottom
		width *= 8
	}
	return time.Time{}, false
}

// Next returns the earliest slot strictly after t. ok is false if there is
// none in the 5 years after t.
func (s *Schedule) Next(t time.Time) (slot time.Time, ok bool) {
	var first int64
	found := false
	s.each(t.Unix(), t.AddDate(5, 0, 0).Unix(), func(u int64) bool {
		first, found = u, true
		return false
	})
	if !found {
		return time.Time{}, false
	}
	return time.Unix(first, 0).UTC(), true
}

// Slots calls fn for every slot in (after, upTo], oldest first, strictly
// increasing, until fn returns false. Slots are in UTC. Only years 1-9999 are
// searched.
func (s *Schedule) Slots(after, upTo time.Time, fn func(slot time.Time) bool) {
	s.each(after.Unix(), upTo.Unix(), func(u int64) bool {
		return fn(time.Unix(u, 0).UTC())
	})
}
