package cmd

import (
	"github.com/catchup/catchup/catchup/schedule"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestHostZone: the host's zone is always a loadable name: TZ (empty is
// UTC), else the zone the localtime link points to, else the zone file it
// is a copy of; never "" nor "Local".
func TestHostZone(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "localtime")
	if err := os.Symlink(filepath.Join(zoneinfoDir, "America/New_York"), link); err != nil {
		t.Fatal(err)
	}
	relative := filepath.Join(dir, "relative")
	if err := os.Symlink("../../../../../../../../../../.."+zoneinfoDir+"/Asia/Tokyo", relative); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "copied")
	data, err := os.ReadFile(filepath.Join(zoneinfoDir, "Asia/Kolkata"))
	if err != nil {
		t.Skipf("no zoneinfo database: %v", err)
	}
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		tz        *string
		localtime string
		want      string
		warns     bool
	}{
		"TZ":                  {tz: ptr("Europe/Berlin"), localtime: link, want: "Europe/Berlin"},
		"TZ with colon":       {tz: ptr(":Europe/Berlin"), localtime: link, want: "Europe/Berlin"},
		"TZ path":             {tz: ptr("/usr/share/zoneinfo/Europe/Oslo"), localtime: link, want: "Europe/Oslo"},
		"TZ empty is UTC":     {tz: ptr(""), localtime: link, want: "UTC"},
		"bad TZ":              {tz: ptr("Mars/Olympus"), localtime: link, want: "America/New_York", warns: true},
		"link":                {localtime: link, want: "America/New_York"},
		"relative link":       {localtime: relative, want: "Asia/Tokyo"},
		"no localtime is UTC": {localtime: filepath.Join(dir, "missing"), want: "UTC"},
	} {
		t.Run(name, func(t *testing.T) {
			if c.tz != nil {
				t.Setenv("TZ", *c.tz)
			} else {
				unsetenv(t, "TZ")
			}
			t.Setenv("CATCHUP_LOCALTIME", c.localtime)
			got, warning := hostZone()
			if got != c.want || (warning != "") != c.warns {
				t.Errorf("hostZone() = %q, %q; want %q (warning: %v)", got, warning, c.want, c.warns)
			}
		})
	}
	// A copy of a zone file, with no /etc/timezone to say which: found by content.
	if got := schedule.ZoneOfFile(data); zoneName(got) == "" || got == "Local" {
		t.Errorf("ZoneOfFile(copy of Asia/Kolkata) = %q", got)
	} else if got != "Asia/Kolkata" && got != "Asia/Calcutta" {
		t.Errorf("ZoneOfFile(copy of Asia/Kolkata) = %q, want Asia/Kolkata or its alias", got)
	}
}

func ptr(s string) *string { return &s }

// unsetenv removes an environment variable for the test.
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "") // restores the old value at the end of the test
	os.Unsetenv(k)
}

// TestWaitFlag: --wait, --wait=DUR and --wait DUR (as flock -w), the flags
// after the limit still run's, and a limit that is not positive refused.
func TestWaitFlag(t *testing.T) {
	for name, c := range map[string]struct {
		args  []string
		wait  bool
		limit time.Duration
		argv  []string
		err   bool
	}{
		"bare":            {args: []string{"--task", "t", "--wait", "--", "cmd"}, wait: true, argv: []string{"cmd"}},
		"equals":          {args: []string{"--task", "t", "--wait=10m", "--", "cmd"}, wait: true, limit: 10 * time.Minute, argv: []string{"cmd"}},
		"next word":       {args: []string{"--task", "t", "--wait", "90s", "--", "cmd", "x"}, wait: true, limit: 90 * time.Second, argv: []string{"cmd", "x"}},
		"flags after":     {args: []string{"--wait", "1d", "--task", "t", "--", "cmd"}, wait: true, limit: 24 * time.Hour, argv: []string{"cmd"}},
		"command after":   {args: []string{"--task", "t", "--wait", "cmd"}, wait: true, argv: []string{"cmd"}},
		"dash first":      {args: []string{"--task", "t", "--wait", "--", "10m"}, wait: true, argv: []string{"10m"}},
		"switch form":     {args: []string{"--task", "t", "--wait=true", "--", "cmd"}, wait: true, argv: []string{"cmd"}},
		"zero":            {args: []string{"--task", "t", "--wait", "0s", "--", "cmd"}, err: true},
		"negative equals": {args: []string{"--task", "t", "--wait=-1m", "--", "cmd"}, err: true},
		"none":            {args: []string{"--task", "t", "--", "cmd"}, argv: []string{"cmd"}},
	} {
		t.Run(name, func(t *testing.T) {
			var rf runFlags
			cmd := &cobra.Command{Use: "run"}
			bindRunFlags(cmd, &rf)
			err := cmd.ParseFlags(c.args)
			var argv []string
			if err == nil {
				argv, err = runArgs(cmd, &rf, cmd.Flags().Args())
			}
			if (err != nil) != c.err {
				t.Fatalf("error %v, want one: %v", err, c.err)
			}
			if err != nil {
				return
			}
			if rf.task != "t" || rf.wait.set != c.wait || rf.wait.limit != c.limit || !reflect.DeepEqual(argv, c.argv) {
				t.Errorf("task %q, wait %v, limit %v, argv %q; want wait %v, limit %v, argv %q",
					rf.task, rf.wait.set, rf.wait.limit, argv, c.wait, c.limit, c.argv)
			}
		})
	}
}
