package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

func TestNextSlots(t *testing.T) {
	berlin, err := schedule.LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		expr  string
		now   string
		n     int
		want  []string // UTC slots
		notes []string // substring of each slot's note ("" for none)
	}{
		"plain": {"0 12 * * *", "2026-01-10T00:00:00Z", 2,
			[]string{"2026-01-10T11:00:00Z", "2026-01-11T11:00:00Z"}, []string{"", ""}},
		"strictly after now": {"0 12 * * *", "2026-01-10T11:00:00Z", 1,
			[]string{"2026-01-11T11:00:00Z"}, []string{""}},
		"spring forward fixed": {"30 2 * * *", "2026-03-28T12:00:00Z", 2,
			[]string{"2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"}, []string{"02:00-03:00 does not exist", ""}},
		"spring forward wildcard": {"*/30 2 * * *", "2026-03-28T12:00:00Z", 1,
			[]string{"2026-03-30T00:00:00Z"}, []string{""}},
		"fall back wildcard": {"0 2 * * *", "2026-10-24T12:00:00Z", 2,
			[]string{"2026-10-25T00:00:00Z", "2026-10-26T01:00:00Z"}, []string{"", ""}},
		"fall back repeated": {"0 * * * *", "2026-10-24T23:30:00Z", 3,
			[]string{"2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"}, []string{"", "02:00 comes twice", ""}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := schedule.Parse(tc.expr, berlin)
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
