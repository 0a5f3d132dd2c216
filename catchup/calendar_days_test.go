package catchup

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestCalendarDaysAcrossTheDateLine: a calendar's days are the dates that
// exist in its zone. A date the zone skipped crossing the date line
// westward (Apia's 2011-12-30) is no day: --days N is the last N that
// came, and every slot of '0 */6 * * *' in the range falls on one of them,
// 4 a day on both sides of the skip. A date that lasted twice as long
// crossing it eastward (Kwajalein's 1969-09-30, Apia's 1892-07-04) is one
// day with the slots of both its occurrences.
func TestCalendarDaysAcrossTheDateLine(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		zone    string
		now     string // RFC 3339
		days    int
		dates   []string // the calendar's days, oldest first
		skipped []string
		perDay  []int // slots of '0 */6 * * *' in the zone, each day
	}{
		"apia skipped 2011-12-30": {"Pacific/Apia", "2012-01-01T20:00:00+14:00", 4,
			[]string{"2011-12-28", "2011-12-29", "2011-12-31", "2012-01-01"}, []string{"2011-12-30"}, []int{4, 4, 4, 4}},
		"apia, today the day after the skip": {"Pacific/Apia", "2011-12-31T02:00:00+14:00", 2,
			[]string{"2011-12-29", "2011-12-31"}, []string{"2011-12-30"}, []int{4, 4}},
		"apia, the skip before the first day": {"Pacific/Apia", "2012-01-01T20:00:00+14:00", 2,
			[]string{"2011-12-31", "2012-01-01"}, nil, []int{4, 4}},
		"fakaofo skipped 2011-12-30": {"Pacific/Fakaofo", "2012-01-01T20:00:00+13:00", 3,
			[]string{"2011-12-29", "2011-12-31", "2012-01-01"}, []string{"2011-12-30"}, []int{4, 4, 4}},
		"kiritimati skipped 1994-12-31": {"Pacific/Kiritimati", "1995-01-02T20:00:00+14:00", 3,
			[]string{"1994-12-30", "1995-01-01", "1995-01-02"}, []string{"1994-12-31"}, []int{4, 4, 4}},
		"kanton skipped 1994-12-31": {"Pacific/Kanton", "1995-01-01T20:00:00+13:00", 3,
			[]string{"1994-12-29", "1994-12-30", "1995-01-01"}, []string{"1994-12-31"}, []int{4, 4, 4}},
		"kwajalein skipped 1993-08-21": {"Pacific/Kwajalein", "1993-08-23T20:00:00+12:00", 3,
			[]string{"1993-08-20", "1993-08-22", "1993-08-23"}, []string{"1993-08-21"}, []int{4, 4, 4}},
		// -12:00 after +11:00 at midnight: the 30th from 00:00 to 24:00
		// +11, then from 01:00 -12 (00:00 came once): 4 + 3 slots.
		"kwajalein 1969-09-30 lasted 47 hours": {"Pacific/Kwajalein", "1969-10-01T20:00:00-12:00", 3,
			[]string{"1969-09-29", "1969-09-30", "1969-10-01"}, nil, []int{4, 7, 4}},
		"apia's 1892-07-04 came twice": {"Pacific/Apia", "1892-07-06T08:00:00Z", 3,
			[]string{"1892-07-03", "1892-07-04", "1892-07-05"}, nil, []int{4, 8, 4}},
		// Havana skips 00:00 to 01:00: the 8th is a day, from 01:00.
		"havana's midnight skipped is no skipped date": {"America/Havana", "2026-03-09T20:00:00-04:00", 3,
			[]string{"2026-03-07", "2026-03-08", "2026-03-09"}, nil, []int{4, 3, 4}},
		"utc": {"UTC", "2026-03-09T20:00:00Z", 2, []string{"2026-03-08", "2026-03-09"}, nil, []int{4, 4}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			loc, err := time.LoadLocation(tc.zone)
			if err != nil {
				t.Skipf("no zone %s: %v", tc.zone, err)
			}
			now := mustTime(t, tc.now)
			days := NewCalendarDays(now, tc.days, loc)
			if got := dateStrings(days.Dates); !slices.Equal(got, tc.dates) {
				t.Fatalf("days %v, want %v", got, tc.dates)
			}
			if got := dateStrings(days.Skipped); !slices.Equal(got, tc.skipped) {
				t.Errorf("skipped %v, want %v", got, tc.skipped)
			}
			for i, d := range days.Dates { // each day starts on itself
				if l := days.Start(i).In(loc); l.Format(time.DateOnly) != d.Format(time.DateOnly) {
					t.Errorf("day %s starts at %s", d.Format(time.DateOnly), l)
				}
			}

			// Every slot of the calendar's range is on one of its days.
			st, db := testLedger(t)
			reg := days.Start(0).Add(-48 * time.Hour)
			if err := st.UpsertTask(context.Background(), store.Task{Name: "six", Schedule: "0 */6 * * *", TZ: tc.zone,
				RegisteredAt: reg, SettledThrough: reg}); err != nil {
				t.Fatal(err)
			}
			from, to := days.Range()
			rows := calendarRows(t, st, testMachine(db, now), CalendarRequest{From: from, To: to})
			perDay := make([]int, len(days.Dates))
			for _, s := range rows[0].Slots {
				d := days.Of(s.Slot)
				if d < 0 {
					t.Errorf("slot %s is on no day", s.Slot.In(loc))
					continue
				}
				perDay[d]++
			}
			if !slices.Equal(perDay, tc.perDay) {
				t.Errorf("slots a day %v, want %v", perDay, tc.perDay)
			}
		})
	}
}

// dateStrings formats dates as YYYY-MM-DD.
func dateStrings(dates []time.Time) []string {
	var out []string
	for _, d := range dates {
		out = append(out, d.Format(time.DateOnly))
	}
	return out
}
