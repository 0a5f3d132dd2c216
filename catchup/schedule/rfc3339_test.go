package schedule

import (
	"testing"
	"time"
)

func TestRFC3339(t *testing.T) {
	load := func(name string) *time.Location {
		loc, err := LoadZone(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	for name, c := range map[string]struct {
		at   string
		loc  *time.Location
		want string
	}{
		"zone offset":               {"2026-03-29T01:00:00Z", load("Europe/Berlin"), "2026-03-29T03:00:00+02:00"},
		"half hour":                 {"2026-10-03T15:30:00Z", load("Australia/Lord_Howe"), "2026-10-04T02:30:00+11:00"},
		"quarter hour":              {"2026-03-06T18:15:00Z", load("Asia/Kathmandu"), "2026-03-07T00:00:00+05:45"},
		"offset seconds: UTC":       {"1971-06-03T00:44:30Z", load("Africa/Monrovia"), "1971-06-03T00:44:30Z"},
		"24 hours ahead: UTC":       {"2026-12-31T00:00:00Z", load("<+24>-24"), "2026-12-31T00:00:00Z"},
		"24 hours behind: UTC":      {"2027-01-01T00:00:00Z", load("<-24>24"), "2027-01-01T00:00:00Z"},
		"14 hours ahead":            {"2026-12-31T10:00:00Z", load("Pacific/Kiritimati"), "2027-01-01T00:00:00+14:00"},
		"no location: t's own zone": {"2026-12-31T10:00:00Z", nil, "2026-12-31T10:00:00Z"},
	} {
		t.Run(name, func(t *testing.T) {
			at, err := time.Parse(time.RFC3339, c.at)
			if err != nil {
				t.Fatal(err)
			}
			got := RFC3339(at, c.loc)
			if got != c.want {
				t.Fatalf("RFC3339(%s) = %s, want %s", c.at, got, c.want)
			}
			back, err := time.Parse(time.RFC3339, got)
			if err != nil || !back.Equal(at) {
				t.Fatalf("%s names %v (%v), not %s", got, back, err, c.at)
			}
		})
	}
}
