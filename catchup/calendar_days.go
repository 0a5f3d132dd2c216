package catchup

import (
	"slices"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// CalendarDays are the days a calendar draws: the last n local dates of
// its zone, today's included, that exist there. A date the zone skipped
// (crossing the date line westward: Pacific/Apia went from 2011-12-29
// 23:59:59 -10:00 to 2011-12-31 00:00:00 +14:00) has no instant, so no
// slot can be on it: it is no day, and is listed in Skipped. A date that
// lasted longer than a day (eastward: Pacific/Kwajalein's 1969-09-30, 47
// hours) is one day, with the slots of all its hours.
type CalendarDays struct {
	Dates   []time.Time // oldest first, each as midnight UTC (dates count in whole days)
	Skipped []time.Time // the dates between the first and the last that the zone skipped
	Loc     *time.Location
	starts  []time.Time // each day's first instant, and the next date's after the last
	col     []int       // the day of each date from Dates[0] on, by whole days; -1: skipped
}

// NewCalendarDays returns the last n dates that exist in loc, ending on
// now's. n must be at least 1.
func NewCalendarDays(now time.Time, n int, loc *time.Location) CalendarDays {
	d := CalendarDays{Loc: loc}
	date := civilDate(now.In(loc)) // now's date exists: now is on it
	// A zone skips at most one date in a row (offsets are within ±16h),
	// so 2n dates hold n that exist.
	for i := 0; len(d.Dates) < n && i < 2*n; i++ {
		if dateExists(date, loc) {
			d.Dates = append(d.Dates, date)
		} else if len(d.Dates) > 0 {
			d.Skipped = append(d.Skipped, date)
		}
		date = date.AddDate(0, 0, -1)
	}
	slices.Reverse(d.Dates)
	slices.Reverse(d.Skipped)
	for i, day := range d.Dates {
		d.starts = append(d.starts, dayStart(day, loc))
		for len(d.col) < int(day.Sub(d.Dates[0])/(24*time.Hour)) {
			d.col = append(d.col, -1) // a skipped date before day
		}
		d.col = append(d.col, i)
	}
	d.starts = append(d.starts, dayStart(d.Dates[len(d.Dates)-1].AddDate(0, 0, 1), loc))
	return d
}

// Start is the first instant of day i: its midnight, or the end of the gap
// where a change of offset skips midnight (Havana's spring is at 01:00).
func (d CalendarDays) Start(i int) time.Time { return d.starts[i] }

// Range is the range of a CalendarRequest, (from, to], that holds the
// slots of every day: from the first day's first instant to the last
// day's end.
func (d CalendarDays) Range() (from, to time.Time) {
	return d.starts[0].Add(-time.Second), d.starts[len(d.starts)-1].Add(-time.Second)
}

// Of is the day t's local date is (its index in Dates), or -1 when that
// date is none of them. It reads no zone data but t's offset: it is called
// once a slot, 100 M times for 10,000 every-minute tasks over 7 days.
func (d CalendarDays) Of(t time.Time) int {
	k := int(civilDate(t.In(d.Loc)).Sub(d.Dates[0]) / (24 * time.Hour))
	if k < 0 || k >= len(d.col) {
		return -1
	}
	return d.col[k]
}

// dateExists reports whether date (midnight UTC) is a date of loc: some
// instant is on it. A skipped date's first instant would be the next
// date's.
func dateExists(date time.Time, loc *time.Location) bool {
	return civilDate(dayStart(date, loc).In(loc)).Equal(date)
}

// dayStart is the first instant of date (midnight UTC) in loc, or of the
// next date when loc skipped it.
func dayStart(date time.Time, loc *time.Location) time.Time {
	return schedule.DayStart(date.Year(), date.Month(), date.Day(), loc)
}

// civilDate is t's local date, as midnight UTC.
func civilDate(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
