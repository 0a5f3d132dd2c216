package schedule

import (
	"testing"
	"time"
)

// TestCatchUpWindow: 10 s for each minute a spring-forward skipped, and a
// minute more, after a slot that merges skipped times; none otherwise.
func TestCatchUpWindow(t *testing.T) {
	tests := map[string]struct {
		expr, tz, slot string
		want           time.Duration
	}{
		"Berlin, a one-hour gap":        {"0,15,30,45 2 * * *", "Europe/Berlin", "2026-03-29T01:00:00Z", 11 * time.Minute},
		"New York, one skipped time":    {"30 2 * * *", "America/New_York", "2026-03-08T07:00:00Z", 11 * time.Minute},
		"Lord Howe, a 30-minute gap":    {"0,15 2 * * *", "Australia/Lord_Howe", "2026-10-03T15:30:00Z", 6 * time.Minute},
		"Troll, a two-hour gap":         {"0 1-3 * * *", "Antarctica/Troll", "2026-03-29T01:00:00Z", 21 * time.Minute},
		"a wildcard minute merges none": {"*/10 2 * * *", "Europe/Berlin", "2026-03-29T01:00:00Z", 0},
		"an ordinary slot":              {"30 2 * * *", "Europe/Berlin", "2026-03-28T01:30:00Z", 0},
		"a fall-back slot":              {"30 2 * * *", "Europe/Berlin", "2026-10-25T00:30:00Z", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			loc, err := LoadZone(tc.tz)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Parse(tc.expr, loc)
			if err != nil {
				t.Fatal(err)
			}
			slot, err := time.Parse(time.RFC3339, tc.slot)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.CatchUpWindow(slot); got != tc.want {
				t.Errorf("CatchUpWindow(%s) = %v, want %v", tc.slot, got, tc.want)
			}
		})
	}
}
