package schedule

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSameZone(t *testing.T) {
	if _, err := os.Stat("/usr/share/zoneinfo/Etc/UTC"); err != nil {
		t.Skipf("no tz database at /usr/share/zoneinfo: %v", err)
	}
	tests := map[string]struct {
		a, b string
		same bool
	}{
		"one name":                  {"Europe/Berlin", "Europe/Berlin", true},
		"a link to Etc/UTC":         {"UTC", "Etc/UTC", true},
		"a link, the other way":     {"Etc/UTC", "UTC", true},
		"a link across dirs":        {"US/Eastern", "America/New_York", true},
		"two zones":                 {"Europe/Berlin", "Europe/Paris", false},
		"UTC and London":            {"UTC", "Europe/London", false},
		"Local and a zone":          {"Local", "Etc/UTC", false},
		"empty and a zone":          {"", "UTC", false},
		"unknown names":             {"Nowhere/A", "Nowhere/B", false},
		"a path is not a name":      {"/usr/share/zoneinfo/UTC", "UTC", false},
		"a name that climbs out":    {"../zoneinfo/UTC", "UTC", false},
		"a file that is not a zone": {"tzdata.zi", "zone.tab", false},
		// An older catchup registered a right/ or posix/ name as given;
		// the name now reads as the zone's (ZoneSpelling).
		"a right/ name":           {"right/Europe/Berlin", "Europe/Berlin", true},
		"a posix/ name":           {"posix/Europe/Berlin", "Europe/Berlin", true},
		"right/ of another zone":  {"right/Europe/Berlin", "Europe/Paris", false},
		"a bare right/ and empty": {"right/", "", false},
		// Files that differ in no offset from 1970 on (abbreviations, history
		// before it) put every slot at the same instant: no zone change.
		"abbreviations only":              {"Etc/GMT", "Etc/UTC", true},
		"GMT and UTC":                     {"GMT", "UTC", true},
		"history before 1970 only":        {"Africa/Accra", "Africa/Abidjan", true},
		"a POSIX string of UTC":           {"UTC0", "UTC", true},
		"a POSIX string of Berlin's rule": {"CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Berlin", false},
		"no DST until 2006":               {"America/Indiana/Indianapolis", "America/New_York", false},
		"a changed offset (Volgograd)":    {"Europe/Volgograd", "Europe/Moscow", false},
		"Local and UTC":                   {"Local", "UTC", false},
		"US rules before 2007 differ":     {"EST5EDT,M3.2.0,M11.1.0", "America/New_York", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := SameZone(tc.a, tc.b); got != tc.same {
				t.Errorf("SameZone(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
			}
		})
	}
}

func TestZoneSpelling(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"a name":                  {"Europe/Berlin", "Europe/Berlin"},
		"POSIX's colon":           {":Europe/Berlin", "Europe/Berlin"},
		"a zone file":             {"/usr/share/zoneinfo/Asia/Kathmandu", "Asia/Kathmandu"},
		"a colon and a zone file": {":/usr/share/zoneinfo/Asia/Kathmandu", "Asia/Kathmandu"},
		"the posix tree":          {"/usr/share/zoneinfo/posix/Europe/Paris", "Europe/Paris"},
		"the right tree":          {"/usr/share/zoneinfo/right/Europe/Paris", "Europe/Paris"},
		"a posix/ name":           {"posix/Europe/Paris", "Europe/Paris"},
		"a right/ name":           {"right/Europe/Paris", "Europe/Paris"},
		"a colon and right/":      {":right/Europe/Paris", "Europe/Paris"},
		"a POSIX string with /":   {"EST5EDT,M3.2.0/2,M11.1.0/2", "EST5EDT,M3.2.0/2,M11.1.0/2"},
		"another zoneinfo dir":    {"/etc/zoneinfo/UTC", "UTC"},
		"a flat name":             {"UTC", "UTC"},
		"empty":                   {"", ""},
		"a colon alone":           {":", ""},
		"another file, as it is":  {"/no/such/localtime", "/no/such/localtime"},
		"not a zoneinfo dir":      {"/opt/myzoneinfo/UTC", "/opt/myzoneinfo/UTC"},
		"an unknown name":         {"Mars/Olympus", "Mars/Olympus"},
		"Local names no zone":     {"Local", ""},
		// The path as the kernel reads it: a doubled slash or a ./ is the
		// same file (glibc opens it, so cron fires the line in its zone);
		// a trailing slash is no file at all: kept, for LoadZone to refuse
		// (it named no zone, "", the host's: cron fires it in UTC).
		"a doubled slash":          {"/usr/share/zoneinfo//Asia/Kathmandu", "Asia/Kathmandu"},
		"a ./":                     {"/usr/share/zoneinfo/./Asia/Kathmandu", "Asia/Kathmandu"},
		"the zoneinfo dir":         {"/usr/share/zoneinfo/", "/usr/share/zoneinfo/"},
		"a zone file, trailing /":  {"/usr/share/zoneinfo/Asia/Kathmandu/", "/usr/share/zoneinfo/Asia/Kathmandu/"},
		"the zoneinfo dir, with :": {":/usr/share/zoneinfo/", "/usr/share/zoneinfo/"},
		"nor does :Local":          {":Local", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ZoneSpelling(tc.in); got != tc.want {
				t.Errorf("ZoneSpelling(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestZoneSpellingThroughALink: a link into the zoneinfo tree, as
// /etc/localtime is (TZ=:/etc/localtime), names the zone it links to.
func TestZoneSpellingThroughALink(t *testing.T) {
	link := filepath.Join(t.TempDir(), "localtime")
	if err := os.Symlink("/usr/share/zoneinfo/Asia/Kathmandu", link); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{link, ":" + link} {
		if got := ZoneSpelling(s); got != "Asia/Kathmandu" {
			t.Errorf("ZoneSpelling(%q) = %q, want Asia/Kathmandu", s, got)
		}
	}
}

// TestZoneSpellingLocaltime: the zoneinfo tree's localtime (Debian's
// /usr/share/zoneinfo/localtime, a link to /etc/localtime) is the host's
// zone, as /etc/localtime is: it is registered as the zone that file
// resolves to now, never as the name localtime, which would follow the
// host's zone wherever it goes, its slots moving with no schedule change.
func TestZoneSpellingLocaltime(t *testing.T) {
	if _, err := os.Stat("/usr/share/zoneinfo/localtime"); err != nil {
		t.Skipf("no /usr/share/zoneinfo/localtime on this machine: %v", err)
	}
	want := ZoneSpelling("/etc/localtime")
	if want == "" || filepath.IsAbs(want) || want == "localtime" {
		t.Skipf("/etc/localtime names no zone of the tree here: %q", want)
	}
	tests := map[string]string{
		"the name":              "localtime",
		"a colon and the name":  ":localtime",
		"the file in the tree":  "/usr/share/zoneinfo/localtime",
		"a colon and the file":  ":/usr/share/zoneinfo/localtime",
		"a doubled slash to it": "/usr/share/zoneinfo//localtime",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ZoneSpelling(in); got != want {
				t.Errorf("ZoneSpelling(%q) = %q, want %q (/etc/localtime's zone)", in, got, want)
			}
		})
	}
}
