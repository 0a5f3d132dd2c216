// Package schedule is a cron expression evaluated in a time zone: the
// slots (instants) it stands for, with cronie's rules for DST changes.
//
// gronx parses and matches expressions, but its tick search (NextTickAfter,
// PrevTickBefore) steps through zoned time and gets DST wrong, so this package
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
// Day-of-month and day-of-week follow cronie, not gronx: when either field
// starts with '*' (or '?') both must match ("0 0 13 * *,5" is the 13th);
// otherwise (both restricted) a day matches if EITHER matches. gronx only
// decides each field on its own; L, W and # are evaluated by gronx on the
// wall date. A day-of-week range ending on Sunday ("fri-sun", "5-0") ends
// on 7, as in cronie; one from 7 to a weekday ("7-1") is descending and
// refused, as cronie refuses it (gronx would read it as 0-1).
package schedule

import "time"

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
	dayDomOnly = iota // dow is * or ?: day matches iff dom matches
	dayAnd            // both must match
	dayOr             // either may match (both restricted)
)

// Expr returns the expression as given (trimmed).
func (s *Schedule) Expr() string { return s.expr }

// Location returns the zone the expression is evaluated in.
func (s *Schedule) Location() *time.Location { return s.loc }

// Prev returns the latest slot at or before t. ok is false only outside
// years 1-9999: a schedule fires at least once in any calendar cycle.
func (s *Schedule) Prev(t time.Time) (slot time.Time, ok bool) {
	hi := t.Unix() // slots are whole seconds: slot <= t iff slot <= floor(t)
	lo := t.AddDate(-cycleYears-1, 0, 0).Unix() - 1
	if t.Nanosecond() != 0 {
		lo++ // [t-401y, t] holds whole seconds from ceil(t-401y)
	}
	// Search backwards in windows growing 8-fold (2m, 16m, ~2h, ... ~2000y), so
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

// Has reports whether t is one of the schedule's slots.
func (s *Schedule) Has(t time.Time) bool {
	p, ok := s.Prev(t)
	return ok && p.Equal(t)
}

// Next returns the earliest slot strictly after t. ok is false only
// outside years 1-9999.
func (s *Schedule) Next(t time.Time) (slot time.Time, ok bool) {
	var first int64
	found := false
	s.each(t.Unix(), t.AddDate(cycleYears+1, 0, 0).Unix(), func(u int64) bool {
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
