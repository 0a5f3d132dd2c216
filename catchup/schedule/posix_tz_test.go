package schedule

import (
	"strings"
	"testing"
	"time"
)

// TestPOSIXZone: a POSIX TZ string is read as glibc reads it: its offsets
// and abbreviations at known instants, on both sides of its DST changes;
// the location is named by the string, and LoadZone of that name (the
// ledger's round trip) reads the same.
func TestPOSIXZone(t *testing.T) {
	tests := map[string]struct {
		tz     string
		at     string // an instant, RFC 3339 in UTC
		abbr   string
		offset string // as in RFC 3339
	}{
		"US rules, winter":                {"EST5EDT,M3.2.0,M11.1.0", "2026-11-10T07:30:00Z", "EST", "-05:00"},
		"US rules, summer":                {"EST5EDT,M3.2.0,M11.1.0", "2026-07-01T06:30:00Z", "EDT", "-04:00"},
		"US rules, just before spring":    {"EST5EDT,M3.2.0,M11.1.0", "2026-03-08T06:59:59Z", "EST", "-05:00"},
		"US rules, at spring":             {"EST5EDT,M3.2.0,M11.1.0", "2026-03-08T07:00:00Z", "EDT", "-04:00"},
		"US rules, just before fall":      {"EST5EDT,M3.2.0,M11.1.0", "2026-11-01T05:59:59Z", "EDT", "-04:00"},
		"US rules, at fall":               {"EST5EDT,M3.2.0,M11.1.0", "2026-11-01T06:00:00Z", "EST", "-05:00"},
		"EU rules with /3, summer":        {"CET-1CEST,M3.5.0,M10.5.0/3", "2026-10-25T00:59:59Z", "CEST", "+02:00"},
		"EU rules with /3, at fall":       {"CET-1CEST,M3.5.0,M10.5.0/3", "2026-10-25T01:00:00Z", "CET", "+01:00"},
		"no DST":                          {"JST-9", "2026-07-01T00:00:00Z", "JST", "+09:00"},
		"quoted, minutes":                 {"<+0330>-3:30", "2026-07-01T00:00:00Z", "+0330", "+03:30"},
		"southern hemisphere, summer":     {"AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-01-01T00:00:00Z", "AEDT", "+11:00"},
		"southern hemisphere, winter":     {"AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-07-01T00:00:00Z", "AEST", "+10:00"},
		"dst offset given, Julian rules":  {"AAA3BBB2,J60/2,J300/2", "2026-06-01T00:00:00Z", "BBB", "-02:00"},
		"dst without rules: the US rules": {"AAA3BBB", "2026-07-01T00:00:00Z", "BBB", "-02:00"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			at, err := time.Parse(time.RFC3339, tc.at)
			if err != nil {
				t.Fatal(err)
			}
			loc, err := LoadZone(tc.tz)
			if err != nil {
				t.Fatalf("LoadZone(%q): %v", tc.tz, err)
			}
			if loc.String() != tc.tz {
				t.Errorf("LoadZone(%q).String() = %q, want the string as given", tc.tz, loc)
			}
			again, err := LoadZone(loc.String())
			if err != nil {
				t.Fatalf("LoadZone(%q) again: %v", loc, err)
			}
			for _, l := range []*time.Location{loc, again} {
				local := at.In(l)
				abbr, _ := local.Zone()
				if abbr != tc.abbr || local.Format("-07:00") != tc.offset {
					t.Errorf("%s in %q = %s %s, want %s %s", tc.at, tc.tz, abbr, local.Format("-07:00"), tc.abbr, tc.offset)
				}
			}
		})
	}
}

// TestPOSIXZoneSlots: a schedule in a POSIX zone has its slots at the
// zone's wall times across a DST change, as in the tzdata zone it copies.
func TestPOSIXZoneSlots(t *testing.T) {
	posix, err := LoadZone("EST5EDT,M3.2.0,M11.1.0")
	if err != nil {
		t.Fatal(err)
	}
	tzdata := mustZone(t, "America/New_York")
	from := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	to := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	for _, expr := range []string{"30 2 * * *", "30 1 * * *", "0 * * * *"} {
		ps, err := Parse(expr, posix)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := Parse(expr, tzdata)
		if err != nil {
			t.Fatal(err)
		}
		checkList(t, expr, collect(ps, from, to), collect(ts, from, to))
	}
}

// TestCheckPOSIXTZ: what the grammar refuses (Go would silently read
// some of these as UTC).
func TestCheckPOSIXTZ(t *testing.T) {
	for name, tz := range map[string]string{
		"empty":                 "",
		"a tzdata-like name":    "Mars/Olympus",
		"no offset":             "EST",
		"a short name":          "ES5",
		"a short quoted name":   "<+3>-3",
		"an unclosed quote":     "<+0330-3:30",
		"an hour out of range":  "EST25",
		"minutes out of range":  "EST5:60",
		"one rule":              "EST5EDT,M3.2.0",
		"rules without dst":     "JST-9,M3.2.0,M11.1.0",
		"a bad month":           "EST5EDT,M13.2.0,M11.1.0",
		"a bad week":            "EST5EDT,M3.6.0,M11.1.0",
		"a bad weekday":         "EST5EDT,M3.2.7,M11.1.0",
		"Julian day 0":          "EST5EDT,J0,J300",
		"a rule time over 167h": "EST5EDT,M3.2.0/168,M11.1.0",
		"a semicolon":           "EST5EDT;M3.2.0,M11.1.0",
		"trailing text":         "EST5EDT,M3.2.0,M11.1.0,",
		"a leading colon (ZoneSpelling strips it first)": ":EST5EDT,M3.2.0,M11.1.0",
	} {
		t.Run(name, func(t *testing.T) {
			if err := checkPOSIXTZ(tz); err == nil {
				t.Errorf("checkPOSIXTZ(%q) accepted it", tz)
			}
		})
	}
}

// FuzzPOSIXTZ: every string checkPOSIXTZ accepts is read by Go's time
// package as that string (never the fallback zone type), at instants
// around the year; LoadZone never panics.
func FuzzPOSIXTZ(f *testing.F) {
	for _, seed := range []string{
		"EST5EDT,M3.2.0,M11.1.0", "<+0330>-3:30", "CET-1CEST,M3.5.0,M10.5.0/3", "JST-9",
		"AAA3BBB2,J60/2,J300/-2", "AAA+24BBB-24:59:59,0/167,365/-167:59:59", "<A-1>1<B+2>", "EST5EDT,M3.2.0",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, tz string) {
		LoadZone(tz)
		if checkPOSIXTZ(tz) != nil {
			return
		}
		loc, err := posixZone(tz)
		if err != nil {
			t.Fatalf("posixZone(%q): %v, though the grammar takes it", tz, err)
		}
		for m := time.January; m <= time.December; m++ {
			if abbr, _ := time.Date(2026, m, 15, 12, 0, 0, 0, time.UTC).In(loc).Zone(); abbr == fallbackAbbr {
				t.Fatalf("%q read as Go's fallback in %v", tz, m)
			}
		}
	})
}

// TestCheckPOSIXTZSaysWhy: the refusal names what is wrong, an offset out
// of range too (not "needs an offset" when one is there).
func TestCheckPOSIXTZSaysWhy(t *testing.T) {
	for tz, want := range map[string]string{
		"AAA-25": "at most 24 hours",
		"EST":    "needs an offset",
	} {
		if err := checkPOSIXTZ(tz); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checkPOSIXTZ(%q) = %v, want it to say %q", tz, err, want)
		}
	}
}
