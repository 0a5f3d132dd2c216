package cmd

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
)

// TestDaemonLineHomeIsAbsolute: a daemon line's job starts in its home,
// the crontab's HOME above it, else the daemon's $HOME, else the passwd
// database's, and that directory is checked before each fire (X12). A
// relative HOME was checked relative to the daemon's current directory,
// the directories above it unchecked, and meant something else once the
// daemon started elsewhere (cron runs its lines from its spool
// directory): the line is refused at load, naming where the HOME came
// from and the fix; so is an empty HOME= (cron cannot chdir to it). With
// no home at all, the job starts in the daemon's current directory: that
// directory, absolute, is the line's home, registered and checked as any.
func TestDaemonLineHomeIsAbsolute(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	passwd := func(home string, err error) func(string) (string, error) {
		return func(string) (string, error) { return home, err }
	}
	for name, tc := range map[string]struct {
		lines   string
		home    func(string) (string, error)
		wantDir string // the home registered and fired in
		wantErr string
	}{
		"crontab HOME absolute": {lines: "HOME=/srv/a\n* * * * * ./job.sh\n", home: passwd("/root", nil), wantDir: "/srv/a"},
		"crontab HOME relative": {lines: "HOME=srv/a\n* * * * * ./job.sh\n", home: passwd("/root", nil),
			wantErr: `HOME="srv/a" (the crontab's, above the line) is not an absolute path: set HOME in the crontab, above the line, to an absolute directory of your own`},
		"crontab HOME dot": {lines: "HOME=.\n* * * * * ./job.sh\n", home: passwd("/root", nil),
			wantErr: `HOME="." (the crontab's, above the line) is not an absolute path`},
		"crontab HOME tilde": {lines: "HOME=~/jobs\n* * * * * ./job.sh\n", home: passwd("/root", nil),
			wantErr: `HOME="~/jobs" (the crontab's, above the line) is not an absolute path`},
		"crontab HOME empty": {lines: "HOME=\n* * * * * ./job.sh\n", home: passwd("/root", nil),
			wantErr: `HOME="" (the crontab's, above the line) is not an absolute path`},
		"daemon HOME": {lines: "* * * * * ./job.sh\n", home: passwd("/root", nil), wantDir: "/root"},
		"daemon HOME relative": {lines: "* * * * * ./job.sh\n", home: passwd("jobs", nil),
			wantErr: `HOME="jobs" (the daemon's: no HOME above the line) is not an absolute path: set HOME in the crontab, above the line, to an absolute directory of your own, or start the daemon with an absolute HOME`},
		"daemon HOME relative, crontab HOME absolute": {lines: "HOME=/srv/a\n* * * * * ./job.sh\n", home: passwd("jobs", nil), wantDir: "/srv/a"},
		"no home at all":  {lines: "* * * * * ./job.sh\n", home: passwd("", errors.New("no home directory")), wantDir: wd},
		"no HomeDir hook": {lines: "* * * * * ./job.sh\n", wantDir: wd},
	} {
		t.Run(name, func(t *testing.T) {
			jobs, errs := crontab.ParseJobs(strings.NewReader(tc.lines), "c.cron")
			if len(errs) > 0 || len(jobs) != 1 {
				t.Fatalf("parse: %v, %d jobs", errs, len(jobs))
			}
			m := catchup.Machine{Zone: "UTC", DB: "/tmp/x.db", HomeDir: tc.home}
			task, err := daemonTask(m, jobs[0], "/etc/c.cron")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v; want it to say %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if task.Req.Dir != tc.wantDir || task.Def.Dir != tc.wantDir || !task.Req.DirFromLedger {
				t.Fatalf("fires in %q, registers %q (from ledger %v); want %q for both", task.Req.Dir, task.Def.Dir, task.Req.DirFromLedger, tc.wantDir)
			}
		})
	}
}
