package cmd

import (
	"testing"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// A table time carries its offset exactly when the task's zone reads its
// wall clock twice (the hour a change back from daylight saving time
// repeats): two times an hour apart must not read alike. Every other time
// stays the compact `2006-01-02 15:04`.
func TestTableTimeRepeatedWallClock(t *testing.T) {
	load := func(name string) *time.Location {
		loc, err := schedule.LoadZone(name)
		if err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		return loc
	}
	berlin, moscow, ny := load("Europe/Berlin"), load("Europe/Moscow"), load("America/New_York")
	posix := load("EST5EDT,M3.2.0,M11.1.0")
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := map[string]struct {
		at   time.Time
		loc  *time.Location
		want string
	}{
		"zero":                               {at: time.Time{}, loc: berlin, want: "-"},
		"before the repeated hour":           {at: utc("2026-10-24T23:59:00Z"), loc: berlin, want: "2026-10-25 01:59"},
		"first 02:00 (CEST)":                 {at: utc("2026-10-25T00:00:00Z"), loc: berlin, want: "2026-10-25 02:00 +02:00"},
		"first 02:59 (CEST)":                 {at: utc("2026-10-25T00:59:59Z"), loc: berlin, want: "2026-10-25 02:59 +02:00"},
		"second 02:00 (CET)":                 {at: utc("2026-10-25T01:00:00Z"), loc: berlin, want: "2026-10-25 02:00 +01:00"},
		"second 02:59 (CET)":                 {at: utc("2026-10-25T01:59:59Z"), loc: berlin, want: "2026-10-25 02:59 +01:00"},
		"after the repeated hour":            {at: utc("2026-10-25T02:00:00Z"), loc: berlin, want: "2026-10-25 03:00"},
		"spring forward: read once":          {at: utc("2026-03-29T01:00:00Z"), loc: berlin, want: "2026-03-29 03:00"},
		"summer":                             {at: utc("2026-07-01T10:00:00Z"), loc: berlin, want: "2026-07-01 12:00"},
		"UTC":                                {at: utc("2026-10-25T00:30:00Z"), loc: time.UTC, want: "2026-10-25 00:30"},
		"fixed zone":                         {at: utc("2026-10-25T00:30:00Z"), loc: time.FixedZone("", 3600), want: "2026-10-25 01:30"},
		"same abbreviation, first (MSK +4)":  {at: utc("2014-10-25T21:30:00Z"), loc: moscow, want: "2014-10-26 01:30 +04:00"},
		"same abbreviation, second (MSK +3)": {at: utc("2014-10-25T22:30:00Z"), loc: moscow, want: "2014-10-26 01:30 +03:00"},
		"local mean time, offset in seconds": {at: utc("1883-11-18T16:57:00Z"), loc: ny, want: "1883-11-18 12:00 -04:56:02"},
		"POSIX TZ string, first (EDT)":       {at: utc("2026-11-01T05:30:00Z"), loc: posix, want: "2026-11-01 01:30 -04:00"},
		"POSIX TZ string, second (EST)":      {at: utc("2026-11-01T06:30:00Z"), loc: posix, want: "2026-11-01 01:30 -05:00"},
		"POSIX TZ string, after":             {at: utc("2026-11-01T07:00:00Z"), loc: posix, want: "2026-11-01 02:00"},
		"standard time after LMT":            {at: utc("1883-11-18T17:01:00Z"), loc: ny, want: "1883-11-18 12:01 -05:00"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tableTime(tc.at, tc.loc); got != tc.want {
				t.Errorf("tableTime(%s) = %q, want %q", tc.at.UTC().Format(time.RFC3339), got, tc.want)
			}
		})
	}
}

// TestRunZone: history, show and ls --running show a run's times in its
// task's zone, and in UTC when that is unknown (the task forgotten
// meanwhile), as ls does; never a nil zone, which time.In refuses.
func TestRunZone(t *testing.T) {
	berlin, err := schedule.LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	zones := map[string]*time.Location{"known": berlin, "nil": nil}
	tests := map[string]struct {
		task string
		want *time.Location
	}{
		"the task's zone":          {task: "known", want: berlin},
		"a task zones lacks":       {task: "forgotten", want: time.UTC},
		"a task whose zone is nil": {task: "nil", want: time.UTC},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := runZone(zones, tc.task); got != tc.want {
				t.Errorf("runZone(%q) = %v, want %v", tc.task, got, tc.want)
			}
		})
	}
}
