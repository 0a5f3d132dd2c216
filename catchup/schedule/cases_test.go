package schedule

import (
	"testing"
	"time"
)

func TestSpecificCases(t *testing.T) {
	berlin := "Europe/Berlin"
	utc := func(s string) time.Time {
		t.Helper()
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UTC()
	}
	// localDay is (start-1s, end-1s] of a local calendar day.
	localDay := func(loc *time.Location, y int, m time.Month, d int) (time.Time, time.Time) {
		return time.Date(y, m, d, 0, 0, 0, 0, loc).Add(-time.Second), time.Date(y, m, d+1, 0, 0, 0, 0, loc).Add(-time.Second)
	}
	type dayCase struct {
		name, zone, expr string
		y                int
		m                time.Month
		d                int
		count            int      // slots that local day
		slots            []string // if set, exactly these
	}
	for _, c := range []dayCase{
		{name: "berlin fall back hourly has 25", zone: berlin, expr: "0 * * * *", y: 2024, m: 10, d: 27, count: 25},
		{name: "berlin fall back 02:30 once, first", zone: berlin, expr: "30 2 * * *", y: 2024, m: 10, d: 27, slots: []string{"2024-10-27T00:30:00Z"}},
		{name: "berlin fall back */30 in 2h twice", zone: berlin, expr: "*/30 2 * * *", y: 2024, m: 10, d: 27, slots: []string{"2024-10-27T00:00:00Z", "2024-10-27T00:30:00Z", "2024-10-27T01:00:00Z", "2024-10-27T01:30:00Z"}},
		{name: "berlin spring 02:30 moves to 03:00 CEST", zone: berlin, expr: "30 2 * * *", y: 2024, m: 3, d: 31, slots: []string{"2024-03-31T01:00:00Z"}},
		{name: "berlin spring hourly has 23", zone: berlin, expr: "0 * * * *", y: 2024, m: 3, d: 31, count: 23},
		{name: "berlin spring skipped times collapse", zone: berlin, expr: "15,45 1-3 * * *", y: 2024, m: 3, d: 31, slots: []string{"2024-03-31T00:15:00Z", "2024-03-31T00:45:00Z", "2024-03-31T01:00:00Z", "2024-03-31T01:15:00Z", "2024-03-31T01:45:00Z"}},
		{name: "berlin spring 03:00 job and gap job share the instant", zone: berlin, expr: "0 2,3 * * *", y: 2024, m: 3, d: 31, slots: []string{"2024-03-31T01:00:00Z"}},
		{name: "new york spring 02:30 -> 07:00Z", zone: "America/New_York", expr: "30 2 * * *", y: 2024, m: 3, d: 10, slots: []string{"2024-03-10T07:00:00Z"}},
		{name: "new york fall back 01:30 first", zone: "America/New_York", expr: "30 1 * * *", y: 2024, m: 11, d: 3, slots: []string{"2024-11-03T05:30:00Z"}},
		{name: "lord howe spring 02:15 moves to 02:30", zone: "Australia/Lord_Howe", expr: "15 2 * * *", y: 2024, m: 10, d: 6, slots: []string{"2024-10-05T15:30:00Z"}},
		{name: "lord howe spring 02:45 exists", zone: "Australia/Lord_Howe", expr: "45 2 * * *", y: 2024, m: 10, d: 6, slots: []string{"2024-10-05T15:45:00Z"}},
		{name: "lord howe spring quarter hours 94", zone: "Australia/Lord_Howe", expr: "*/15 * * * *", y: 2024, m: 10, d: 6, count: 94},
		{name: "lord howe fall back 01:45 once", zone: "Australia/Lord_Howe", expr: "45 1 * * *", y: 2024, m: 4, d: 7, slots: []string{"2024-04-06T14:45:00Z"}},
		{name: "lord howe fall back quarter hours 98", zone: "Australia/Lord_Howe", expr: "*/15 * * * *", y: 2024, m: 4, d: 7, count: 98},
		{name: "lord howe fall back hourly 24", zone: "Australia/Lord_Howe", expr: "0 * * * *", y: 2024, m: 4, d: 7, count: 24},
		{name: "santiago spring midnight moves to 01:00", zone: "America/Santiago", expr: "0 0 * * *", y: 2024, m: 9, d: 8, slots: []string{"2024-09-08T04:00:00Z"}},
		{name: "santiago fall back 23:30 once", zone: "America/Santiago", expr: "30 23 * * *", y: 2024, m: 4, d: 6, slots: []string{"2024-04-07T02:30:00Z"}},
		{name: "santiago fall back midnight once", zone: "America/Santiago", expr: "0 0 * * *", y: 2024, m: 4, d: 7, slots: []string{"2024-04-07T04:00:00Z"}},
		{name: "havana spring midnight moves to 01:00", zone: "America/Havana", expr: "0 0 * * *", y: 2024, m: 3, d: 10, slots: []string{"2024-03-10T05:00:00Z"}},
		{name: "havana fall back 00:30 once", zone: "America/Havana", expr: "30 0 * * *", y: 2024, m: 11, d: 3, slots: []string{"2024-11-03T04:30:00Z"}},
		{name: "havana fall back every minute of 0h twice", zone: "America/Havana", expr: "* 0 * * *", y: 2024, m: 11, d: 3, count: 120},
		{name: "kolkata half hour offset", zone: "Asia/Kolkata", expr: "0 2 * * *", y: 2024, m: 6, d: 1, slots: []string{"2024-05-31T20:30:00Z"}},
		{name: "leap day", zone: berlin, expr: "0 2 29 2 *", y: 2024, m: 2, d: 29, slots: []string{"2024-02-29T01:00:00Z"}},
		{name: "chatham spring 03:00 and 03:30 are one slot at 03:45", zone: "Pacific/Chatham", expr: "0,30 3 * * *", y: 2026, m: 9, d: 27, slots: []string{"2026-09-26T14:00:00Z"}},
		{name: "chatham fall back quarter hours 100", zone: "Pacific/Chatham", expr: "*/15 * * * *", y: 2026, m: 4, d: 5, count: 100},
		{name: "casablanca ramadan fall back 02:30 once", zone: "Africa/Casablanca", expr: "30 2 * * *", y: 2026, m: 2, d: 15, slots: []string{"2026-02-15T01:30:00Z"}},
		{name: "casablanca after ramadan 02:30 moves to 03:00", zone: "Africa/Casablanca", expr: "30 2 * * *", y: 2026, m: 3, d: 22, slots: []string{"2026-03-22T02:00:00Z"}},
		{name: "tehran last dst midnight moves to 01:00", zone: "Asia/Tehran", expr: "0 0 * * *", y: 2022, m: 3, d: 22, slots: []string{"2022-03-21T20:30:00Z"}},
		{name: "tehran dst abolished hourly has 24", zone: "Asia/Tehran", expr: "0 * * * *", y: 2023, m: 3, d: 22, count: 24},
		{name: "sao paulo dst abolished midnight stays", zone: "America/Sao_Paulo", expr: "0 0 * * *", y: 2019, m: 11, d: 3, slots: []string{"2019-11-03T03:00:00Z"}},
		{name: "apia skipped day runs at the change", zone: "Pacific/Apia", expr: "0 12 * * *", y: 2011, m: 12, d: 31, slots: []string{"2011-12-30T10:00:00Z", "2011-12-30T22:00:00Z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			loc := mustZone(t, c.zone)
			s := mustParse(t, c.expr, loc)
			from, to := localDay(loc, c.y, c.m, c.d)
			got := collect(s, from, to)
			checkList(t, c.name, got, bruteForce(t, c.expr, loc, from, to))
			if c.slots != nil {
				var want []time.Time
				for _, sl := range c.slots {
					want = append(want, utc(sl))
				}
				checkList(t, c.name+" (expected)", got, want)
			} else if len(got) != c.count {
				t.Errorf("%s: %d slots, want %d", c.name, len(got), c.count)
			}
		})
	}

	t.Run("santiago midnight every day 2023-2026", func(t *testing.T) {
		loc := mustZone(t, "America/Santiago")
		s := mustParse(t, "0 0 * * *", loc)
		perDay := map[string]int{}
		s.Slots(time.Date(2023, 1, 1, 0, 0, 0, 0, loc).Add(-time.Second), time.Date(2027, 1, 1, 0, 0, 0, 0, loc).Add(-time.Second), func(sl time.Time) bool {
			perDay[sl.In(loc).Format("2006-01-02")]++
			return true
		})
		for d := time.Date(2023, 1, 1, 12, 0, 0, 0, time.UTC); d.Year() < 2027; d = d.AddDate(0, 0, 1) {
			if n := perDay[d.Format("2006-01-02")]; n != 1 {
				t.Errorf("%s: %d slots", d.Format("2006-01-02"), n)
			}
		}
	})

	// Cases where gronx v1.20.4's own PrevTickBefore/NextTickAfter fail.
	type refCase struct {
		name, zone, expr string
		prev             bool
		ref, want        string
	}
	for _, c := range []refCase{
		{name: "gronx prev inside repeated hour (first 02:06)", zone: berlin, expr: "0 * * * *", prev: true, ref: "2024-10-27T00:06:00Z", want: "2024-10-27T00:00:00Z"},
		{name: "gronx prev inside repeated hour (second 02:06)", zone: berlin, expr: "0 * * * *", prev: true, ref: "2024-10-27T01:06:00Z", want: "2024-10-27T01:00:00Z"},
		{name: "gronx prev fixed job after repeated hour", zone: berlin, expr: "30 2 * * *", prev: true, ref: "2024-10-27T01:45:00Z", want: "2024-10-27T00:30:00Z"},
		{name: "gronx next havana midnight", zone: "America/Havana", expr: "0 0 * * *", ref: "2024-03-09T17:00:00Z", want: "2024-03-10T05:00:00Z"},
		{name: "gronx next havana hourly across gap", zone: "America/Havana", expr: "0 * * * *", ref: "2024-03-10T04:30:00Z", want: "2024-03-10T05:00:00Z"},
		{name: "gronx next santiago midnight", zone: "America/Santiago", expr: "0 0 * * *", ref: "2024-09-07T16:00:00Z", want: "2024-09-08T04:00:00Z"},
		{name: "gronx next santiago hourly across gap", zone: "America/Santiago", expr: "0 * * * *", ref: "2024-09-08T03:30:00Z", want: "2024-09-08T04:00:00Z"},
		{name: "gronx next lord howe spring", zone: "Australia/Lord_Howe", expr: "*/15 * * * *", ref: "2024-10-05T15:20:00Z", want: "2024-10-05T15:30:00Z"},
		{name: "gronx next lord howe fall back repeats", zone: "Australia/Lord_Howe", expr: "*/15 * * * *", ref: "2024-04-06T14:50:00Z", want: "2024-04-06T15:00:00Z"},
		{name: "gronx next lord howe fall back fixed skips", zone: "Australia/Lord_Howe", expr: "45 1 * * *", ref: "2024-04-06T14:50:00Z", want: "2024-04-07T15:15:00Z"},
		{name: "gronx prev first second of due minute", zone: "UTC", expr: "* * * * *", prev: true, ref: "2024-05-01T10:00:00.5Z", want: "2024-05-01T10:00:00Z"},
		{name: "prev exactly at slot", zone: "UTC", expr: "0 10 * * *", prev: true, ref: "2024-05-01T10:00:00Z", want: "2024-05-01T10:00:00Z"},
		{name: "prev just before slot", zone: "UTC", expr: "0 10 * * *", prev: true, ref: "2024-05-01T09:59:59.999999999Z", want: "2024-04-30T10:00:00Z"},
		{name: "next exactly at slot is later", zone: "UTC", expr: "0 10 * * *", ref: "2024-05-01T10:00:00Z", want: "2024-05-02T10:00:00Z"},
		{name: "next inside first second", zone: "UTC", expr: "* * * * *", ref: "2024-05-01T10:00:00.5Z", want: "2024-05-01T10:01:00Z"},
		{name: "prev yearly far back", zone: berlin, expr: "@yearly", prev: true, ref: "2024-12-31T20:00:00Z", want: "2023-12-31T23:00:00Z"},
		{name: "prev leap day 4 years back", zone: berlin, expr: "0 2 29 2 *", prev: true, ref: "2028-02-28T12:00:00Z", want: "2024-02-29T01:00:00Z"},
		{name: "next leap day", zone: berlin, expr: "0 2 29 2 *", ref: "2024-03-01T00:00:00Z", want: "2028-02-29T01:00:00Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustParse(t, c.expr, mustZone(t, c.zone))
			f := s.Next
			if c.prev {
				f = s.Prev
			}
			got, ok := f(utc(c.ref))
			if !ok || !got.Equal(utc(c.want)) || got.Location() != time.UTC {
				t.Errorf("%s(%s) = %v, %v; want %s", map[bool]string{true: "Prev", false: "Next"}[c.prev], c.ref, got, ok, c.want)
			}
		})
	}
}

func TestPrevNextNone(t *testing.T) {
	// No slot before year 1 or after 9999.
	s := mustParse(t, "0 0 1 1 *", time.UTC)
	if got, ok := s.Prev(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Second)); ok {
		t.Errorf("Prev before year 1 = %v, want none", got)
	}
	if got, ok := s.Next(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)); ok {
		t.Errorf("Next in 9999 = %v, want none", got)
	}
	// "Feb 29 AND Sunday" (dow starting with * intersects): 2004, 2032, 2060.
	rare := mustParse(t, "0 0 29 2 */7", time.UTC)
	for _, c := range []struct {
		prev      bool
		ref, want time.Time
	}{
		{true, time.Date(2037, 2, 28, 23, 59, 59, 0, time.UTC), time.Date(2032, 2, 29, 0, 0, 0, 0, time.UTC)},
		{true, time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2004, 2, 29, 0, 0, 0, 0, time.UTC)},
		{false, time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2032, 2, 29, 0, 0, 0, 0, time.UTC)},
		{false, time.Date(2032, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(2060, 2, 29, 0, 0, 0, 0, time.UTC)},
	} {
		f := rare.Next
		if c.prev {
			f = rare.Prev
		}
		got, ok := f(c.ref)
		if !ok || !got.Equal(c.want) {
			t.Errorf("prev=%v ref %v: %v, %v; want %v", c.prev, c.ref, got, ok, c.want)
		}
	}
	leapOnly := mustParse(t, "0 0 29 2 *", time.UTC)
	if got, ok := leapOnly.Prev(time.Date(2029, 2, 28, 0, 0, 0, 0, time.UTC)); !ok || !got.Equal(time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("leap Prev = %v, %v", got, ok)
	}
	// Day 29 OR Monday: the first Monday comes first.
	or := mustParse(t, "0 0 29 * 1", time.UTC)
	if got, ok := or.Next(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)); !ok || !got.Equal(time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Next dom-or-dow = %v, %v; want the first Monday", got, ok)
	}
}

func TestSlotsStopsAndEdges(t *testing.T) {
	s := mustParse(t, "* * * * *", time.UTC)
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	s.Slots(from, from.Add(time.Hour), func(sl time.Time) bool {
		n++
		return n < 5
	})
	if n != 5 {
		t.Errorf("Slots did not stop: %d calls", n)
	}
	// (after, upTo]: a slot at after is excluded, a slot at upTo included.
	got := collect(s, from, from.Add(2*time.Minute))
	if len(got) != 2 || !got[0].Equal(from.Add(time.Minute)) || !got[1].Equal(from.Add(2*time.Minute)) {
		t.Errorf("Slots(after, upTo] = %v", got)
	}
	if got := collect(s, from, from); len(got) != 0 {
		t.Errorf("empty range: %v", got)
	}
	if got := collect(s, from.Add(time.Hour), from); len(got) != 0 {
		t.Errorf("reversed range: %v", got)
	}
	// Extreme times must not panic or hang.
	s.Slots(time.Time{}, time.Time{}.Add(time.Hour), func(time.Time) bool { return true })
	far := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	s.Slots(far, far.AddDate(1, 0, 0), func(time.Time) bool { return true })
	s.Prev(time.Time{})
	s.Next(far)
	b := mustParse(t, "@yearly", mustZone(t, "Europe/Berlin"))
	b.Prev(time.Time{})
	b.Next(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))
	b.Slots(time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), func(time.Time) bool { return true })
	// Input zones don't matter.
	ny := mustZone(t, "America/New_York")
	a := collect(s, from.In(ny), from.Add(time.Hour).In(ny))
	if len(a) != 60 || a[0].Location() != time.UTC {
		t.Errorf("zoned inputs: %d slots", len(a))
	}
}
