package schedule

import (
	"testing"
	"time"
)

func TestDayStart(t *testing.T) {
	tests := map[string]struct {
		zone string
		date string // local date
		want string // first instant of that date, UTC
	}{
		"utc":                          {"UTC", "2026-03-08", "2026-03-08T00:00:00Z"},
		"berlin spring day":            {"Europe/Berlin", "2026-03-29", "2026-03-28T23:00:00Z"},
		"berlin autumn day":            {"Europe/Berlin", "2026-10-25", "2026-10-24T22:00:00Z"},
		"havana before spring":         {"America/Havana", "2026-03-07", "2026-03-07T05:00:00Z"},
		"havana midnight skipped":      {"America/Havana", "2026-03-08", "2026-03-08T05:00:00Z"},
		"havana after spring":          {"America/Havana", "2026-03-09", "2026-03-09T04:00:00Z"},
		"havana midnight twice":        {"America/Havana", "2026-11-01", "2026-11-01T04:00:00Z"},
		"santiago midnight skipped":    {"America/Santiago", "2026-09-06", "2026-09-06T04:00:00Z"},
		"santiago saturday repeated":   {"America/Santiago", "2026-04-04", "2026-04-04T03:00:00Z"},
		"santiago after autumn":        {"America/Santiago", "2026-04-05", "2026-04-05T04:00:00Z"},
		"beirut midnight skipped":      {"Asia/Beirut", "2026-03-29", "2026-03-28T22:00:00Z"},
		"cairo midnight skipped":       {"Africa/Cairo", "2026-04-24", "2026-04-23T22:00:00Z"},
		"asuncion midnight skipped":    {"America/Asuncion", "2023-10-01", "2023-10-01T04:00:00Z"},
		"lord howe half-hour spring":   {"Australia/Lord_Howe", "2026-10-04", "2026-10-03T13:30:00Z"},
		"lord howe half-hour autumn":   {"Australia/Lord_Howe", "2026-04-05", "2026-04-04T13:00:00Z"},
		"apia skipped day: next day's": {"Pacific/Apia", "2011-12-30", "2011-12-30T10:00:00Z"},
		"apia day after the skip":      {"Pacific/Apia", "2011-12-31", "2011-12-30T10:00:00Z"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			loc, err := time.LoadLocation(tc.zone)
			if err != nil {
				t.Skipf("no zone %s: %v", tc.zone, err)
			}
			d, err := time.Parse(time.DateOnly, tc.date)
			if err != nil {
				t.Fatal(err)
			}
			got := DayStart(d.Year(), d.Month(), d.Day(), loc)
			if g := got.UTC().Format(time.RFC3339); g != tc.want {
				t.Fatalf("DayStart(%s, %s) = %s (%s), want %s", tc.date, tc.zone, g, got.In(loc), tc.want)
			}
			// Exact: it is on the day (or the day after a skipped day),
			// and the second before it is on an earlier day.
			l := got.In(loc)
			if civil(l).Before(d) {
				t.Errorf("%s is before %s", l, tc.date)
			}
			if p := got.Add(-time.Second).In(loc); !civil(p).Before(d) {
				t.Errorf("the second before, %s, is already on %s", p, tc.date)
			}
		})
	}
}

// civil is t's local date as midnight UTC.
func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
