package catchup

import (
	"strings"
	"testing"
	"time"
)

func TestErrNotASlotNamesOnlySlots(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expr, tz string
		at       time.Time
		want     string
	}{
		"between two slots": {"0 * * * *", "UTC", time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC),
			"the nearest slots are 2026-03-01T10:00:00Z and 2026-03-01T11:00:00Z ("},
		// The zero time is catchup's "no slot": a SLOT there is refused,
		// so it is never offered as the nearest one.
		"just after the zero time": {"0 * * * *", "UTC", time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
			"the nearest slot is 0001-01-01T01:00:00Z ("},
		// 02:30 did not exist that day: the slot is at 03:00 EDT.
		"after a wall time DST skipped": {"30 2 * * *", "America/New_York", time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC),
			"the nearest slots are 2026-03-08T03:00:00-04:00 and 2026-03-09T02:30:00-04:00 ("},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := parseSchedule(tc.expr, tc.tz)
			if err != nil {
				t.Fatal(err)
			}
			got := errNotASlot("SLOT", tc.at, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), s).Error()
			if !strings.Contains(got, tc.want) {
				t.Errorf("errNotASlot = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// TestErrNotASlotHintsWhereSlotsAreListed: a past instant's hint is
// backfill --dry-run, which lists a past range's slots; an instant to
// come gets catchup next, which lists the slots to come (backfill refuses
// a range in the future), its zone quoted only when a shell would read it.
func TestErrNotASlotHintsWhereSlotsAreListed(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		expr, tz string
		at       time.Time
		want     string
	}{
		"past":                     {"0 * * * *", "UTC", now.Add(-90 * time.Minute), "(catchup backfill --dry-run --only all lists a range's slots)"},
		"to come":                  {"0 * * * *", "Europe/London", now.Add(90 * time.Minute), `(catchup next "0 * * * *" --tz Europe/London lists the slots to come)`},
		"to come, POSIX TZ string": {"0 * * * *", "<+0330>-3:30", now.Add(90 * time.Minute), `--tz "<+0330>-3:30" lists`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := parseSchedule(tc.expr, tc.tz)
			if err != nil {
				t.Fatal(err)
			}
			got := errNotASlot("SLOT", tc.at, now, s).Error()
			if !strings.Contains(got, tc.want) {
				t.Errorf("errNotASlot = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// TestErrNotASlotSaysAWallTimeDidNotOccurOrCameTwice: a SLOT written as a
// wall time with an offset its zone uses that day, where a clock change
// skipped that wall time or read it twice, is told so, so that the nearest
// slots make sense; an instant written in an offset the zone never uses
// there (UTC for New York) is no wall time of the zone, and gets no note.
func TestErrNotASlotSaysAWallTimeDidNotOccurOrCameTwice(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	est, edt := time.FixedZone("", -5*3600), time.FixedZone("", -4*3600)
	lhst := time.FixedZone("", 10*3600+1800) // Lord Howe's standard time: a 30-minute change
	tests := map[string]struct {
		expr, tz string
		at       time.Time
		want     string // "" for no note
	}{
		"skipped, written in the offset before the change": {"30 2 * * *", "America/New_York", time.Date(2026, 3, 8, 2, 30, 0, 0, est),
			"in America/New_York (02:30 on 2026-03-08 did not occur there: a clock change skipped it); the nearest slots are 2026-03-08T03:00:00-04:00 and"},
		"skipped, written in the offset after it": {"30 2 * * *", "America/New_York", time.Date(2026, 3, 8, 2, 45, 0, 0, edt),
			"(02:45 on 2026-03-08 did not occur there: a clock change skipped it)"},
		"read twice, the second": {"30 1 * * *", "America/New_York", time.Date(2026, 11, 1, 1, 30, 0, 0, est),
			"(01:30 on 2026-11-01 came twice there, at -04:00 and at -05:00); the nearest slots are 2026-11-01T01:30:00-04:00 and"},
		"a 30-minute change skipped it": {"0 3 * * *", "Australia/Lord_Howe", time.Date(2026, 10, 4, 2, 15, 0, 0, lhst),
			"(02:15 on 2026-10-04 did not occur there: a clock change skipped it)"},
		"with seconds": {"30 2 * * *", "America/New_York", time.Date(2026, 3, 8, 2, 30, 7, 0, est),
			"(02:30:07 on 2026-03-08 did not occur there"},
		"UTC is no wall time of New York":        {"30 2 * * *", "America/New_York", time.Date(2026, 3, 8, 2, 30, 0, 0, time.UTC), ""},
		"a wall time that occurred once":         {"30 2 * * *", "America/New_York", time.Date(2026, 3, 9, 2, 31, 0, 0, edt), ""},
		"an offset the zone never uses that day": {"30 2 * * *", "America/New_York", time.Date(2026, 3, 8, 2, 30, 0, 0, time.FixedZone("", -6*3600)), ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := parseSchedule(tc.expr, tc.tz)
			if err != nil {
				t.Fatal(err)
			}
			got := errNotASlot("SLOT", tc.at, now, s).Error()
			switch {
			case tc.want == "" && (strings.Contains(got, "did not occur") || strings.Contains(got, "came twice")):
				t.Errorf("errNotASlot = %q, want no note on the wall time", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("errNotASlot = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}
