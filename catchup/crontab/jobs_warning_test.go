package crontab

import (
	"strings"
	"testing"
)

// TestJobWarning: a line whose command runs catchup run without starting
// with it gets a warning (the daemon runs it as written: two tasks); a
// catchup run line, and a command that only names catchup, get none.
func TestJobWarning(t *testing.T) {
	for name, tc := range map[string]struct {
		line string
		warn bool
	}{
		"cd first":             {"* * * * * cd /tmp && catchup run --task x -- true", true},
		"an assignment first":  {"* * * * * FOO=1 /usr/bin/catchup run --task x -- true", true},
		"flags before run":     {"* * * * * nice catchup --db /x.db run --task x -- true", true},
		"a catchup run line":   {"* * * * * catchup run --task x -- true", false},
		"catchup named only":   {"* * * * * echo catchup is here", false},
		"catchup, run far off": {"* * * * * catchup a b c d e f run", false},
	} {
		t.Run(name, func(t *testing.T) {
			jobs, errs := ParseJobs(strings.NewReader(tc.line+"\n"), "c")
			if len(errs) > 0 || len(jobs) != 1 {
				t.Fatalf("ParseJobs = %v, %v", jobs, errs)
			}
			if got := jobs[0].Warning != ""; got != tc.warn {
				t.Errorf("warning %q; want one: %v", jobs[0].Warning, tc.warn)
			}
		})
	}
}
