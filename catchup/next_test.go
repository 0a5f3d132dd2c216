package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

func TestNextSlots(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		zone  string // "" for Europe/Berlin
		expr  string
		now   string
		n     int
		want  []string // UTC slots
		notes []string // substring of each slot's note ("" for none)
	}{
		"plain": {"", "0 12 * * *", "2026-01-10T00:00:00Z", 2,
			[]string{"2026-01-10T11:00:00Z", "2026-01-11T11:00:00Z"}, []string{"", ""}},
		"strictly after now": {"", "0 12 * * *", "2026-01-10T11:00:00Z", 1,
			[]string{"2026-01-11T11:00:00Z"}, []string{""}},
		"spring forward fixed": {"", "30 2 * * *", "2026-03-28T12:00:00Z", 2,
			[]string{"2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"}, []string{"02:00-03:00 does not exist", ""}},
		"spring forward wildcard": {"", "*/30 2 * * *", "2026-03-28T12:00:00Z", 1,
			[]string{"2026-03-30T00:00:00Z"}, []string{""}},
		"fall back wildcard": {"", "0 2 * * *", "2026-10-24T12:00:00Z", 2,
			[]string{"2026-10-25T00:00:00Z", "2026-10-26T01:00:00Z"}, []string{"", ""}},
		"spring forward merged with the change's time": {"", "0 2,3 * * *", "2026-03-28T12:00:00Z", 2,
			[]string{"2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"},
			[]string{"DST: 02:00-03:00 does not exist; 02:00 (skipped) and 03:00 are one slot (cronie runs each)", ""}},
		"spring forward several skipped": {"", "0,30 2 * * *", "2026-03-28T12:00:00Z", 1,
			[]string{"2026-03-29T01:00:00Z"}, []string{"02:00, 02:30 (skipped) are one slot (cronie runs each)"}},
		"spring forward many skipped": {"", "0-59 2 * * *", "2026-03-28T12:00:00Z", 1,
			[]string{"2026-03-29T01:00:00Z"}, []string{"02:00 ... 02:59 (60 times, skipped) are one slot"}},
		"spring forward two hours": {"Antarctica/Troll", "0 1-3 * * *", "2026-03-28T12:00:00Z", 2,
			[]string{"2026-03-29T01:00:00Z", "2026-03-29T23:00:00Z"},
			[]string{"DST: 01:00-03:00 does not exist; 01:00, 02:00 (skipped) and 03:00 are one slot (cronie runs each)", ""}},
		"spring forward, only the change's time": {"", "0 3 * * *", "2026-03-28T12:00:00Z", 1,
			[]string{"2026-03-29T01:00:00Z"}, []string{""}},
		"a whole day skipped (Samoa, 2011)": {"Pacific/Apia", "0 12 * * *", "2011-12-29T00:00:00Z", 2,
			[]string{"2011-12-29T22:00:00Z", "2011-12-30T10:00:00Z"},
			[]string{"", "clock change: 2011-12-30 00:00-2011-12-31 00:00 does not exist; the skipped time runs at the change"}},
		"a whole day skipped, merged with the time at the change, dated": {"Pacific/Apia", "0 0 * * *", "2011-12-29T00:00:00Z", 2,
			[]string{"2011-12-29T10:00:00Z", "2011-12-30T10:00:00Z"},
			[]string{"", "clock change: 2011-12-30 00:00-2011-12-31 00:00 does not exist; 2011-12-30 00:00 (skipped) and 2011-12-31 00:00 are one slot (cronie runs each)"}},
		"a whole day skipped, many times merged, dated": {"Pacific/Apia", "0 0-23 * * *", "2011-12-30T09:00:00Z", 1,
			[]string{"2011-12-30T10:00:00Z"},
			[]string{"does not exist; 2011-12-30 00:00 ... 2011-12-30 23:00 (24 times, skipped) and 2011-12-31 00:00 are one slot"}},
		"a gap from midnight, within one date": {"America/Santiago", "30 0 * * *", "2026-09-05T12:00:00Z", 1,
			[]string{"2026-09-06T04:00:00Z"},
			[]string{"DST: 00:00-01:00 does not exist; the skipped time runs at the change"}},
		"fall back repeated": {"", "0 * * * *", "2026-10-24T23:30:00Z", 3,
			[]string{"2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"}, []string{"", "02:00 comes twice", ""}},
		"fall back repeated, DST named": {"", "0 * * * *", "2026-10-24T23:30:00Z", 3,
			[]string{"2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"}, []string{"", "DST: 02:00 comes twice", ""}},
		"a standard time moved back, not DST (Moscow, 2014)": {"Europe/Moscow", "0 * * * *", "2014-10-25T20:30:00Z", 3,
			[]string{"2014-10-25T21:00:00Z", "2014-10-25T22:00:00Z", "2014-10-25T23:00:00Z"},
			[]string{"", "clock change: 01:00 comes twice", ""}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.zone == "" {
				tc.zone = "Europe/Berlin"
			}
			loc, err := schedule.LoadZone(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			s, err := schedule.Parse(tc.expr, loc)
			if err != nil {
				t.Fatal(err)
			}
			now, _ := time.Parse(time.RFC3339, tc.now)
			got := NextSlots(s, now, tc.n)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d slots %v, want %v", len(got), got, tc.want)
			}
			for i, u := range got {
				if s := u.Slot.Format(time.RFC3339); s != tc.want[i] {
					t.Errorf("slot %d = %s, want %s", i, s, tc.want[i])
				}
				if tc.notes[i] == "" && u.Note != "" || !strings.Contains(u.Note, tc.notes[i]) {
					t.Errorf("slot %d note = %q, want %q", i, u.Note, tc.notes[i])
				}
			}
		})
	}
}
