package docstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scanExit1Reasons are the reasons scan exits 1 (catchup.ScanReport.Failed):
// a failed replay, a task whose missed slots no scan can replay (its
// command kept redacted), a task whose ledger is ahead of the clock, a
// refused crontab or line, another user's refused notes of unrecorded
// fires, a file beside a crontab that runs its commands without catchup,
// a task none of whose replays could start (its working directory refused).
var scanExit1Reasons = []struct{ name, re string }{
	{"failed replay", `replay failed`},
	{"redacted command", `redacted|secret`},
	{"clock ahead", `clock ahead|later than now`},
	{"refused crontab line", `crontab line was refused|line of one,? was refused`},
	{"refused notes", `notes of unrecorded fires`},
	{"cron backup", `NAME\.bak`},
	{"refused working directory", `working directory refused`},
}

// TestReadmeScanExitStatus: README's short contract and scan --help give
// every reason scan exits 1, as the contract's table does.
func TestReadmeScanExitStatus(t *testing.T) {
	src, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `catchup scan` \\|.*$").FindString(string(src))
	if row == "" {
		t.Fatal("README.md has no `catchup scan` row")
	}
	help, err := exec.Command(filepath.Join(binDir, "catchup"), "scan", "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	helpText := strings.Join(strings.Fields(string(help)), " ")
	for _, tc := range scanExit1Reasons {
		t.Run(tc.name, func(t *testing.T) {
			re := regexp.MustCompile(tc.re)
			if !re.MatchString(row) {
				t.Errorf("README's scan row does not say scan exits 1 for %s (/%s/): %s", tc.name, tc.re, row)
			}
			if !re.MatchString(helpText) {
				t.Errorf("scan --help does not say it exits 1 for %s (/%s/)", tc.name, tc.re)
			}
		})
	}
}
