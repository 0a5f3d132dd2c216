package cmd

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
)

// secretValues are secret-shaped values a flag may get by mistake (a
// crontab line's VAR=secret after a flag, a flag's value forgotten): each
// error that refuses one shows it masked, never hunter2 (X11).
var secretValues = []string{"PGPASSWORD=hunter2", "TOKEN=hunter2", "DB_PASS=hunter2", "https://u:hunter2@h/x", "password=hunter2"}

// TestFlagValueErrorsMaskSecrets: every flag of every command that refuses
// a value as it parses it (durations, counts, --wait, ...) names it masked
// in the error the user sees; a plain bad value is quoted as given.
func TestFlagValueErrorsMaskSecrets(t *testing.T) {
	root := NewRootCommand()
	var walk func(c *cobra.Command)
	checked := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			for _, v := range secretValues {
				cmd := rebuilt(c)
				err := cmd.ParseFlags([]string{"--" + f.Name + "=" + v})
				if err == nil {
					continue // taken as it is (a string): checked where it is used
				}
				checked++
				if got := cmd.FlagErrorFunc()(cmd, err).Error(); strings.Contains(got, "hunter2") {
					t.Errorf("%s --%s=%s: the error echoes the secret: %q", c.CommandPath(), f.Name, v, got)
				}
			}
		})
	}
	walk(root)
	if checked == 0 {
		t.Fatal("no flag refused a secret-shaped value: the test checks nothing")
	}
	cmd := rebuilt(root.Commands()[0])
	if err := cmd.ParseFlags([]string{"--lease", "5x"}); err == nil || !strings.Contains(cmd.FlagErrorFunc()(cmd, err).Error(), "--lease 5x: not a duration") {
		t.Errorf("--lease 5x: %v; want the plain value quoted", err)
	}
}

// rebuilt is a fresh command of c's path, its flags unset.
func rebuilt(c *cobra.Command) *cobra.Command {
	root := NewRootCommand()
	found, _, err := root.Find(strings.Fields(c.CommandPath())[1:])
	if err != nil {
		panic(err)
	}
	return found
}

// TestDaemonLineFlagValueMasksSecret: the daemon's error for a line whose
// flag got a secret-shaped value (logged as a warning) shows it masked; a
// plain bad value is quoted as written.
func TestDaemonLineFlagValueMasksSecret(t *testing.T) {
	for name, tc := range map[string]struct{ flags, want string }{
		"timeout":  {"--timeout PGPASSWORD=hunter2", `invalid --timeout "PGPASSWORD=***"`},
		"max-age":  {"--max-age TOKEN=hunter2", `invalid --max-age "TOKEN=***"`},
		"wait":     {"--wait=DB_PASS=hunter2", `invalid --wait "DB_PASS=***"`},
		"retries":  {"--retries https://u:hunter2@h/x", `invalid --retries "https://u:***@h/x"`},
		"on-busy":  {"--on-busy PGPASSWORD=hunter2", `invalid --on-busy "PGPASSWORD=***"`},
		"replay":   {"--replay PGPASSWORD=hunter2", `"PGPASSWORD=***"`},
		"tz":       {"--tz PGPASSWORD=hunter2", `"PGPASSWORD=***"`},
		"cron":     {"--cron TOKEN=hunter2", `--cron "TOKEN=***"`},
		"plain":    {"--timeout 5x", `invalid --timeout "5x"`},
		"plain tz": {"--tz Mars/Base", `"Mars/Base"`},
	} {
		t.Run(name, func(t *testing.T) {
			line := "0 2 * * * catchup run --task t " + tc.flags + " -- true\n"
			jobs, errs := crontab.ParseJobs(strings.NewReader(line), "c.cron")
			if len(errs) > 0 || len(jobs) != 1 {
				t.Fatalf("parse: %v, %d jobs", errs, len(jobs))
			}
			_, err := daemonTask(catchup.Machine{Zone: "UTC", DB: "/tmp/x.db"}, jobs[0], "/etc/c.cron")
			if err == nil {
				t.Fatal("daemonTask: no error")
			}
			if got := err.Error(); !strings.Contains(got, tc.want) || strings.Contains(got, "hunter2") {
				t.Errorf("daemonTask: %q; want it to hold %q and no hunter2", got, tc.want)
			}
		})
	}
}
