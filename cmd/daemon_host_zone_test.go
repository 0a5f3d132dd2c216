package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDaemonZoneReread: at a reload the daemon reads the host's zone
// again; a changed zone is said once and used, a zone that cannot be read
// now (the link gone for a moment, a file that names no zone) keeps the
// one the tasks were read in, and so does a TZ that names a zone.
func TestDaemonZoneReread(t *testing.T) {
	dir := t.TempDir()
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	berlin := link("berlin", filepath.Join(zoneinfoDir, "Europe/Berlin"))
	utc := link("utc", filepath.Join(zoneinfoDir, "Etc/UTC"))
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("not a zone file"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		tz        *string // nil: unset
		localtime string
		was       string
		shared    bool
		want      string
		notice    string // "" for none
	}{
		"a changed zone is used, and said": {localtime: berlin, was: "America/New_York", want: "Europe/Berlin",
			notice: "the host's zone changed from America/New_York to Europe/Berlin: the lines without --tz or CRON_TZ are read in Europe/Berlin"},
		"on a shared ledger, its tasks' zones are said to stay": {localtime: berlin, was: "America/New_York", want: "Europe/Berlin", shared: true,
			notice: "the host's zone changed from America/New_York to Europe/Berlin: the lines without --tz or CRON_TZ are read in Europe/Berlin, " +
				"but for the tasks the shared ledger holds in their own zone"},
		"the same zone: nothing said":                {localtime: berlin, was: "Europe/Berlin", want: "Europe/Berlin"},
		"another name of the same zone is no change": {localtime: utc, was: "UTC", want: "UTC"},
		"the link gone for a moment keeps the zone":  {localtime: filepath.Join(dir, "missing"), was: "Asia/Tokyo", want: "Asia/Tokyo"},
		"a file that names no zone keeps the zone, and says so": {localtime: garbage, was: "Asia/Tokyo", want: "Asia/Tokyo",
			notice: "cannot name the zone of " + garbage + "; the lines without --tz or CRON_TZ stay in Asia/Tokyo"},
		"a dangling link (a mistyped target) keeps the zone, and says so": {localtime: link("typo", filepath.Join(zoneinfoDir, "Europe/Berln")), was: "Asia/Tokyo", want: "Asia/Tokyo",
			notice: "cannot read the zone of " + filepath.Join(dir, "typo") + ": it links to " + filepath.Join(zoneinfoDir, "Europe/Berln") + ", which does not exist; the lines without --tz or CRON_TZ stay in Asia/Tokyo"},
		"a TZ that names a zone names it for good": {tz: ptr("Asia/Tokyo"), localtime: berlin, was: "Asia/Tokyo", want: "Asia/Tokyo"},
		"a TZ that names none: the link is read": {tz: ptr("Mars/Olympus"), localtime: berlin, was: "America/New_York", want: "Europe/Berlin",
			notice: "the host's zone changed from America/New_York to Europe/Berlin: the lines without --tz or CRON_TZ are read in Europe/Berlin"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.tz != nil {
				t.Setenv("TZ", *tc.tz)
			} else {
				unsetenv(t, "TZ")
			}
			t.Setenv("CATCHUP_LOCALTIME", tc.localtime)
			var notices []string
			z := &daemonZone{zone: tc.was, shared: tc.shared}
			got := z.reread(func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) })
			if got != tc.want || z.zone != tc.want {
				t.Errorf("reread() = %q (kept %q), want %q", got, z.zone, tc.want)
			}
			var want []string
			if tc.notice != "" {
				want = []string{tc.notice}
			}
			if fmt.Sprint(notices) != fmt.Sprint(want) {
				t.Errorf("notices %q, want %q", notices, want)
			}
			// A changed zone is said once: read again, the host unchanged, nothing more.
			if tc.want != tc.was {
				notices = nil
				z.reread(func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) })
				if len(notices) > 0 {
					t.Errorf("a second reread of an unchanged host said %q", notices)
				}
			}
		})
	}
}
