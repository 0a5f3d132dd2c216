package schedule

import "time"

// DayStart is the first instant whose local date in loc is y-m-d (or
// later, for a day a zone skipped, as Samoa skipped 2011-12-30): the day's
// midnight, or the change to daylight saving time when it skips midnight
// (Havana, Santiago, Beirut, Cairo spring from 00:00 to 01:00), where
// time.Date(y, m, d, 0, 0, 0, 0, loc) gives 23:00 the day before.
func DayStart(y int, m time.Month, d int, loc *time.Location) time.Time {
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC) // normalised
	// Every zone's offset is within ±16h: this instant is on an earlier
	// day everywhere. Walk the zone's periods (a constant offset each, in
	// which the local date only grows) to the first on the day.
	t := day.Add(-27 * time.Hour)
	for {
		l := t.In(loc)
		if !civilDate(l).Before(day) {
			return t // a period that starts on the day (or after it)
		}
		_, off := l.Zone()
		midnight := day.Add(-time.Duration(off) * time.Second) // after t: same offset, later date
		_, end := l.ZoneBounds()
		if end.IsZero() || midnight.Before(end) {
			return midnight
		}
		t = end
	}
}

// civilDate is t's local date, as midnight UTC.
func civilDate(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
