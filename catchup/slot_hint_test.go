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
