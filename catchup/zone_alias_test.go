package catchup

import (
	"os"
	"strings"
	"testing"
)

// TestZoneAliasKeepsMissedSlots: a fire that names the task's zone by
// another name of the same zone (cron without TZ reads /etc/localtime's
// link, Etc/UTC; a shell or container sets TZ=UTC) has not changed the
// schedule: the slots missed before it stay missed, and scan replays
// them. A really different zone is a new schedule, counted from the fire.
func TestZoneAliasKeepsMissedSlots(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		first, then string
		replayed    []string // of 11:00 and 12:00 UTC, missed between the fires (CATCHUP_SLOT in the zone)
	}{
		"UTC, then Etc/UTC":                  {"UTC", "Etc/UTC", hours("replay", 11, 12)},
		"Etc/UTC, then UTC":                  {"Etc/UTC", "UTC", hours("replay", 11, 12)},
		"America/New_York, then US/Eastern":  {"America/New_York", "US/Eastern", []string{"2026-03-01T06:00:00-05:00 replay", "2026-03-01T07:00:00-05:00 replay"}},
		"UTC, then Europe/London (a change)": {"UTC", "Europe/London", nil},
		// An older catchup registered --tz right/Europe/Berlin as given;
		// the same --tz now names Europe/Berlin (ZoneSpelling): no change.
		"right/Europe/Berlin, then Europe/Berlin": {"right/Europe/Berlin", "Europe/Berlin",
			[]string{"2026-03-01T12:00:00+01:00 replay", "2026-03-01T13:00:00+01:00 replay"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, z := range []string{tc.first, tc.then} {
				if _, err := os.Stat("/usr/share/zoneinfo/" + z); err != nil {
					t.Skipf("no zone file for %s: %v", z, err)
				}
			}
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			fire := func(zone string) {
				t.Helper()
				req := f.request(t)
				req.Schedule, req.TZ = mustSchedule(t, "0 * * * *", zone), zone
				if res := f.run(t, req); res.ExitCode != 0 {
					t.Fatalf("fire in %s: exit %d", zone, res.ExitCode)
				}
			}
			fire(tc.first)
			f.now = mustTime(t, "2026-03-01T13:00:30Z")
			fire(tc.then)
			f.now = mustTime(t, "2026-03-01T13:30:00Z")
			f.scan(t, scanRequest())
			var replayed []string
			for _, r := range f.job.runs(t) {
				if strings.HasSuffix(r, " replay") {
					replayed = append(replayed, r)
				}
			}
			if strings.Join(replayed, "|") != strings.Join(tc.replayed, "|") {
				t.Errorf("replayed %v, want %v", replayed, tc.replayed)
			}
		})
	}
}

// TestZoneAliasCrontab: the same rule for a crontab line, whose zone is
// the host's when the line names none: a boot scan reads /etc/localtime's
// link (Etc/UTC), an operator's shell may set TZ=UTC.
func TestZoneAliasCrontab(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/share/zoneinfo/Etc/UTC"); err != nil {
		t.Skipf("no tz database at /usr/share/zoneinfo: %v", err)
	}
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	scan := func(zone string) TaskScan {
		t.Helper()
		f.m.Zone = zone
		req := scanRequest()
		// No catchup on the line's PATH: the replays fail, and the slots
		// they were for are what this test reads.
		req.Crontabs = []CrontabSource{{Name: "stdin", R: strings.NewReader(
			"PATH=/nonexistent\n0 * * * * catchup run --task job -- true\n")}}
		return f.scan(t, req)
	}
	if ts := scan("Etc/UTC"); len(ts.Missed) != 0 {
		t.Fatalf("registering scan: missed %v", ts.Missed)
	}
	f.now = mustTime(t, "2026-03-01T13:30:00Z")
	ts := scan("UTC")
	var missed []string
	for _, s := range ts.Missed {
		missed = append(missed, s.Format("15:04"))
	}
	if got := strings.Join(missed, " "); got != "11:00 12:00 13:00" {
		t.Errorf("scan from TZ=UTC: missed %q, want 11:00 12:00 13:00", got)
	}
}
